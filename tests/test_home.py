"""The App Home tab, `/finetune spend` and the estimate re-run after a pilot, end to end: the real bot
(`python -m bot`) against the fake Slack (tests/fakeslack.py: views.publish with Slack's limits,
chat.getPermalink), requests signed as Slack signs them, in English and Spanish.

Pilots that ran on a GPU are written into the bot's state database through the pilot store's API
(tests/home_helpers.py: what that GPU would have measured); the running pilot is a real one,
started from Slack on this CPU and cancelled from Slack."""

from __future__ import annotations

import json
import time

import pytest

from advisor.catalog import Catalog
from advisor.format import usd
from advisor.pilot.store import PilotStore
from tests.conftest import have
from tests.fakeslack import BOT_USER_ID, BotProcess, assert_valid_blocks, message_text
from tests.home_helpers import seed_pilot

A100_PRICE = Catalog.in_memory().gpu("a100").price_usd_per_hour
BUDGET = 40.0


@pytest.fixture(scope="module")
def bot(slack, tmp_path_factory):
    work = tmp_path_factory.mktemp("homebot")
    env = {"ADVISOR_PILOT_USERS": "UALICE,UCARA", "ADVISOR_PILOT_ADMINS": "UADMIN", "ADVISOR_PILOT_STEPS": "10000",
           "ADVISOR_PILOT_DAILY_BUDGET_USD": str(BUDGET), "ADVISOR_PILOT_DIR": str(work / "runs")}
    process = BotProcess(slack, work, env=env).start()
    yield process
    process.stop()


def in_channel(channel, thread=None, ts=None):
    return lambda c: (c.args.get("channel") == channel and (thread is None or c.args.get("thread_ts") == thread)
                      and (ts is None or c.args.get("ts") == ts))


def mention(bot, slack, channel, user, text):
    """@advisor TEXT at the top of CHANNEL; returns (the question's ts, the answer call)."""
    ts = slack.next_ts()
    assert bot.event({"type": "app_mention", "channel": channel, "user": user, "ts": ts,
                      "text": f"<@{BOT_USER_ID}> {text}"}).status == 200
    [answer] = slack.wait_for("chat.postMessage", in_channel(channel, ts))
    bot.wait_remembered(channel, ts)
    return ts, answer


def open_home(bot, slack, user):
    """The person opens the Home tab; returns the view published for them (validated)."""
    before = len(slack.calls_to("views.publish", lambda c: c.args.get("user_id") == user))
    assert bot.event({"type": "app_home_opened", "user": user, "channel": f"D{user}", "tab": "home",
                      "event_ts": f"{time.time():.6f}"}).status == 200
    call = slack.wait_for("views.publish", lambda c: c.args.get("user_id") == user, count=before + 1)[-1]
    assert call.result["ok"], call.result
    view = call.args["view"]
    view = json.loads(view) if isinstance(view, str) else view
    assert view["type"] == "home" and len(view["blocks"]) <= 100
    assert_valid_blocks(view["blocks"][:50]) and assert_valid_blocks(view["blocks"][50:] or view["blocks"][:1])
    return view


def private_replies(slack, name):
    return slack.calls_to("response_url", lambda c: c.args.get("name") == name)


def spend(bot, slack, user, text, name):
    assert bot.command(text, user=user, channel="CSPEND", response_url=slack.response_url(name)).status == 200
    [reply] = slack.wait_for("response_url", lambda c: c.args.get("name") == name)
    return message_text(assert_valid_blocks(reply.args["blocks"]))


@pytest.mark.torch
@pytest.mark.slow
@pytest.mark.skipif(not have("torch"), reason="needs torch (a real pilot runs)")
def test_home_tab_shows_plans_a_running_pilot_the_budget_and_measured_mfu(bot, slack):
    question, answer = mention(bot, slack, "CHOME", "UALICE", "lora llama-3.1-8b seq 2048 with 100M tokens")
    store = PilotStore(bot.state)
    seed_pilot(store, "p-home-gpu", user="UOTHER", held_s=300, speedup=1.4)  # measured on an A100 by someone
    # a real pilot from the answer's "Run pilot" button, long enough to be running when the tab opens
    value = json.dumps({"spec": {"model": "tiny-test", "method": "lora", "precision": "fp32", "seq_len": 512},
                        "gpu": "a100", "lang": "en"})
    assert bot.action("run_pilot", value, channel="CHOME", message_ts=answer.result["ts"], thread_ts=question,
                      user="UALICE").status == 200
    [confirm] = slack.wait_for("chat.postMessage", in_channel("CHOME", question), count=2)[1:]
    buttons = {e["action_id"]: e["value"] for b in confirm.args["blocks"] if b["type"] == "actions" for e in b["elements"]}
    bot.action("pilot_confirm", buttons["pilot_confirm"], channel="CHOME", message_ts=confirm.result["ts"],
               thread_ts=question, user="UALICE")
    pilot_id = buttons["pilot_confirm"]
    status = slack.wait_for("chat.postMessage", in_channel("CHOME", question), count=3)[2]
    slack.wait_for("chat.update", lambda c: c.args.get("ts") == status.result["ts"] and "step" in c.args.get("text", ""),
                   timeout=120)
    try:
        view = open_home(bot, slack, "UALICE")
        text = message_text(view["blocks"])
        # the plan, with its spec, recommended plan, cost and a link to the thread
        assert "Your recent plans" in text and "LoRA · Llama 3.1 8B · seq 2048" in text
        assert "to an accepted checkpoint" in text
        link = f"https://fake-team.slack.com/archives/CHOME/p{answer.result['ts'].replace('.', '')}?thread_ts={question}"
        assert f"<{link}&cid=CHOME|open the thread>" in text
        # the running pilot with its progress, the budget, the measured MFU against the prior
        assert "Your pilots running" in text and f"`{pilot_id}` on NVIDIA A100 80GB: step " in text
        assert "$0.00 so far" in text  # a local pilot on this CPU rents nothing (advisor.pilot.spend)
        rec = store.require(pilot_id)
        assert f"of {usd(BUDGET)} used today (UTC)" in text and "one pilot may cost at most $5.00" in text
        assert rec.state in ("pending", "running") and rec.confirmed_by == "UALICE"
        assert "Measured MFU per GPU" in text and "*NVIDIA A100 80GB* (LoRA):" in text and "(pilots: 1)" in text
        assert "throughput 1.40× the prior's" in text
        assert "Shown in English, the language of your last question to me." in text
    finally:  # the pilot would run for an hour: cancel it from Slack, as a person would
        bot.action("pilot_cancel", pilot_id, channel="CHOME", message_ts=status.result["ts"], thread_ts=question,
                   user="UALICE")
        deadline = time.monotonic() + 60
        while store.require(pilot_id).state not in ("failed", "finished") and time.monotonic() < deadline:
            time.sleep(0.2)
    assert store.require(pilot_id).reason == "cancelled"


def test_home_tab_in_spanish_for_someone_who_asked_in_spanish(bot, slack):
    mention(bot, slack, "CCASA", "UBEA", "¿puedo hacer qlora de llama-3-70b con secuencia de 8192 y 50M tokens?")
    text = message_text(open_home(bot, slack, "UBEA")["blocks"])
    assert "Tus planes recientes" in text and "QLoRA · Llama 3 70B · secuencia 8192" in text
    assert "hasta un punto de control aceptado" in text and "abrir el hilo" in text
    assert "No tienes ningún piloto en curso." in text and "Presupuesto de pilotos de hoy" in text
    assert "En español, el idioma de tu última pregunta." in text
    assert "Your recent plans" not in text and "Today's pilot budget" not in text


def test_home_tab_of_someone_new_is_english_and_says_why(bot, slack):
    text = message_text(open_home(bot, slack, "UNEWBIE")["blocks"])
    assert "No plans yet" in text and "Shown in English until you ask me something" in text


def test_finetune_spend_reports_the_callers_pilots_and_admins_see_everyone(bot, slack):
    store = PilotStore(bot.state)
    ok = seed_pilot(store, "p-spend-ok", user="UDAN", held_s=600)
    oom = seed_pilot(store, "p-spend-oom", user="UDAN", state="failed", reason="oom", held_s=300)
    seed_pilot(store, "p-spend-eve", user="UEVE", launcher="local", held_s=900)
    text = spend(bot, slack, "UDAN", "spend", "spend-dan")
    dan_total = ok.cost_usd + oom.cost_usd  # one GPU each: wall x catalog price
    assert "Pilot spend" in text and "Pilots of <@UDAN>" in text and f"Total: {usd(dan_total)} (pilots: 2)" in text
    assert "`p-spend-ok`" in text and "`p-spend-oom`" in text and "failed" in text and "p-spend-eve" not in text
    assert "10 min × $1.19/h × 1 GPU" in text and "5 min × $1.19/h × 1 GPU" in text
    # "all" is for admins: a non-admin is told so and gets their own
    text = spend(bot, slack, "UEVE", "spend all", "spend-eve")
    assert "Only admins may see other people's spend (<@UADMIN>)" in text
    assert "local launcher: the bot's own machine, no GPU rented, costs 0" in text and "p-spend-ok" not in text
    text = spend(bot, slack, "UADMIN", "spend all", "spend-admin")
    assert "Everyone's pilots" in text and "Per user" in text and "<@UDAN>" in text and "<@UEVE>" in text
    text = spend(bot, slack, "UADMIN", "spend <@UDAN|dan> since 2020-01-01", "spend-admin-dan")  # an escaped mention
    assert "Pilots of <@UDAN> since 2020-01-01" in text and "p-spend-eve" not in text
    text = spend(bot, slack, "UADMIN", "spend UEVE", "spend-admin-eve")  # a member ID
    assert "Pilots of <@UEVE>" in text and "p-spend-eve" in text and "p-spend-ok" not in text
    text = spend(bot, slack, "UADMIN", "spend since yesterday", "spend-bad-date")
    assert "`yesterday` is not a date: write it as YYYY-MM-DD (UTC)" in text
    text = spend(bot, slack, "UADMIN", "spend @dan", "spend-bad-user")  # an unescaped name says what to write
    assert "Usage: `/finetune spend [all | MEMBER_ID]" in text and "Copy member ID" in text


def test_finetune_gasto_answers_in_spanish(bot, slack):
    seed_pilot(PilotStore(bot.state), "p-gasto-1", user="UFER", state="failed", reason="oom", held_s=240)
    text = spend(bot, slack, "UFER", "gasto", "gasto-fer")
    assert "Gasto en pilotos" in text and "Pilotos de <@UFER>" in text and "fallido" in text
    assert "Por día (UTC)" in text and "Pilot spend" not in text


# Each case pilots a GPU no other test of this module calibrates, so the thread's answer is the
# prior's and the pilot is the first to move it.
@pytest.mark.parametrize("lang, gpu, question, expected", [
    ("en", "h100", "lora llama-3.2-1b seq 1024 with 200M tokens on an H100",
     ["Re-estimated with pilot `{id}` on NVIDIA H100 SXM 80 GB: it measured 1.4x the prior throughput",
      "to an accepted checkpoint (was "]),
    ("es", "l40s", "lora de llama-3.2-1b con secuencia de 1024 y 200M tokens en una L40S",
     ["Estimación rehecha con el piloto `{id}` en NVIDIA L40S 48 GB: midió 1,4x el rendimiento previo",
      "hasta un punto de control aceptado (antes "]),
])
def test_a_finished_pilot_gets_the_thread_a_recalibrated_estimate(bot, slack, lang, gpu, question, expected):
    channel = f"CRECAL{lang.upper()}"
    root, answer = mention(bot, slack, channel, "UCARA", question)
    before = message_text(answer.args["blocks"])
    store = PilotStore(bot.state)
    pilot = f"p-recal-{lang}"
    # a pilot of this thread that measured 1.4x the throughput its prediction said, on that GPU
    seed_pilot(store, pilot, user="UCARA", channel=channel, thread_ts=root, lang=lang, speedup=1.4, gpu_id=gpu,
               model="llama-3.2-1b", seq=1024)
    final, recal = slack.wait_for("chat.postMessage", in_channel(channel, root), count=3, timeout=60)[1:]
    assert f"`{pilot}`" in message_text(assert_valid_blocks(final.args["blocks"]))
    text = message_text(assert_valid_blocks(recal.args["blocks"]))
    for phrase in expected:
        assert phrase.format(id=pilot) in text, text
    bot.wait_jobs_done()  # the re-estimate's job records what it compared when its post is committed
    result = json.loads(bot.query("SELECT result FROM outbox WHERE key = ?", (f"pilot-recal:{pilot}",))[0]["result"])
    change = result["recalibration"]
    assert change["measured_ratio"] == pytest.approx(1.4, rel=0.02)
    was, now = change["before"], change["after"]
    assert now["tokens_per_s"] > was["tokens_per_s"] and now["cost_usd"] < was["cost_usd"]
    assert usd(now["cost_usd"], lang) in text and usd(was["cost_usd"], lang) in text and usd(was["cost_usd"], lang) in before
    assert len(slack.calls_to("chat.postMessage", in_channel(channel, root))) == 3  # posted once


# --- in process: the view's limits, the fake's limits -------------------------------------------


@pytest.fixture
def services(slack, tmp_path):
    from slack_sdk import WebClient

    from advisor.answer import Advisor
    from bot.services import build_services
    from bot.settings import Settings
    from tests.conftest import ROOT
    from tests.fakeslack import BOT_TOKEN, SIGNING_SECRET

    settings = Settings.from_env({"SLACK_BOT_TOKEN": BOT_TOKEN, "SLACK_SIGNING_SECRET": SIGNING_SECRET,
                                  "SLACK_API_URL": slack.api_url, "ADVISOR_STATE_DB": str(tmp_path / "state.db"),
                                  "ADVISOR_CATALOG": str(ROOT / "catalog.db")})
    catalog = Catalog.open(settings.catalog_path)
    made = build_services(settings, WebClient(token=BOT_TOKEN, base_url=slack.api_url), advisor=Advisor(catalog))
    yield made
    made.close()


def test_a_busy_persons_home_view_stays_within_slacks_limits(services, slack):
    """Thirty plans, thirty pilots running and five calibrated GPUs: the view keeps the latest
    plans, at most 100 blocks, passes slack_sdk's View validation and the fake's views.publish."""
    from advisor.pilot.launchers.base import PilotHandle
    from bot.home import home_store, home_view, publish_home

    reply = services.advisor.ask("qlora llama-3-70b seq 8192 with 100M tokens")
    home = home_store(services)
    for i in range(30):
        ts = f"1700000{i:03d}.000100"
        services.store.save_answer("CBUSY", ts, ts, "estimate", "en", reply.request, reply.data)
        home.remember_asked("UBUSY", "CBUSY", ts, ts, "estimate", "en")
    store = PilotStore(services.store.db)
    for i in range(30):
        rec = seed_pilot(store, f"p-busy-{i:02d}", user="UBUSY", gpu_id=("a100", "h100", "l40s")[i % 3],
                         speedup=1.0 + i / 100)
        store.update(rec.id, state="running", handle=PilotHandle(pilot_id=rec.id, launcher="ray", submitted_at=0, ref={}),
                     last_progress={"steps_completed": i, "total_steps": 40})
    view = home_view(services, "UBUSY")
    text = message_text(view["blocks"])
    assert len(view["blocks"]) <= 100 and "Older plans not shown: 20." in text
    assert text.count("open the thread") + text.count("in <#CBUSY>") == 10 and "step 29/40" in text
    publish_home(services, "UBUSY")
    assert slack.home_views["UBUSY"]["blocks"] == view["blocks"]


def test_the_fake_views_publish_refuses_what_slack_refuses(services, slack):
    from slack_sdk.errors import SlackApiError

    client = services.client
    section = {"type": "section", "text": {"type": "mrkdwn", "text": "x"}}
    with pytest.raises(SlackApiError) as too_many:
        client.views_publish(user_id="ULIMIT", view={"type": "home", "blocks": [section] * 101})
    assert too_many.value.response["error"] == "invalid_arguments"
    assert "no more than 100 items" in too_many.value.response["response_metadata"]["messages"][0]
    with pytest.raises(SlackApiError) as modal:
        client.views_publish(user_id="ULIMIT", view={"type": "modal", "blocks": [section]})
    assert modal.value.response["error"] == "invalid_arguments"
    first = client.views_publish(user_id="ULIMIT", view={"type": "home", "blocks": [section]})
    with pytest.raises(SlackApiError) as stale:
        client.views_publish(user_id="ULIMIT", hash="1.stale", view={"type": "home", "blocks": [section]})
    assert stale.value.response["error"] == "hash_conflict"
    again = client.views_publish(user_id="ULIMIT", hash=first["view"]["hash"], view={"type": "home", "blocks": [section]})
    assert again["view"]["id"] == first["view"]["id"]
    slack.home_tab_enabled = False
    try:
        with pytest.raises(SlackApiError) as off:
            client.views_publish(user_id="ULIMIT", view={"type": "home", "blocks": [section]})
        assert off.value.response["error"] == "not_enabled"
    finally:
        slack.home_tab_enabled = True


def test_who_asked_what_and_their_language_on_both_backends(state_target):
    """bot.home's tables beside the bot's own (SQLite and a real PostgreSQL): an answer remembered
    in its delivery's transaction, the person's latest language wins, only answers with numbers
    are plans."""
    from bot.home import HomeStore
    from bot.store import StateStore

    store = StateStore(state_target)
    home = HomeStore(store.db)
    with store.transaction() as tx:  # as bot/conversation.py remember() does, in the delivery's transaction
        store.save_answer("CB", "1.000001", "1.000001", "estimate", "es", None, {"x": 1}, tx=tx)
        home.remember_asked("UONE", "CB", "1.000001", "1.000001", "estimate", "es", tx=tx)
    store.save_answer("CB", "1.000002", "1.000001", "followup", "en", None, {"x": 2})
    home.remember_asked("UONE", "CB", "1.000002", "1.000001", "followup", "en")
    home.remember_asked("UONE", "CB", "1.000003", "1.000001", "faq", "en")  # no numbers: not a plan
    rows, total = home.recent("UONE")
    assert [r["ts"] for r in rows] == ["1.000002", "1.000001"] and total == 2
    assert home.lang("UONE") == "en" and home.lang("UNOBODY") is None
    home.set_permalink("CB", "1.000002", "https://x.slack.com/archives/CB/p1000002")
    assert home.recent("UONE")[0][0]["permalink"].endswith("p1000002")
    assert HomeStore(store.db).db.version("home") == 1  # migrating again changes nothing
