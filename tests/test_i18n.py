from advisor.i18n import LANGS, fields_of, messages, t


def test_every_message_has_both_languages_with_the_same_fields():
    for key, texts in messages().items():
        assert set(texts) == set(LANGS), key
        assert fields_of(texts["en"]) == fields_of(texts["es"]), key


def test_unknown_language_falls_back_to_english():
    assert t("method.full", "fr") == t("method.full", "en") == "full fine-tune"
    assert t("method.full", "es") == "ajuste fino completo"
