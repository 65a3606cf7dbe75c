"""Number formatting shared by the CLI and the bot (units people read at a glance)."""

from __future__ import annotations

GIB = 1024**3


def gib(n_bytes: float, digits: int = 1) -> str:
    """Bytes as GiB, the unit torch and nvidia-smi (MiB-based) report in."""
    return f"{n_bytes / GIB:.{digits}f} GiB"


def usd(amount: float | None) -> str:
    if amount is None:
        return "-"
    if abs(amount) >= 100:
        return f"${amount:,.0f}"
    if abs(amount) >= 0.1:
        return f"${amount:,.2f}"
    return f"${amount:.3f}"


def hours(h: float | None, lang: str = "en") -> str:
    """A duration in the unit a person plans with (minutes, hours, days), in ``lang``."""
    from advisor.i18n import t

    if h is None:
        return "-"
    if h < 1:
        return t("notes.unit.min", lang, n=f"{h * 60:.0f}")
    if h < 48:
        return t("notes.unit.h", lang, n=f"{h:.1f}")
    return t("notes.unit.days", lang, n=f"{h / 24:.1f}")


def si(n: float) -> str:
    """1.2e9 -> '1.2B', 5e7 -> '50M'."""
    for unit, scale in (("T", 1e12), ("B", 1e9), ("M", 1e6), ("k", 1e3)):
        if abs(n) >= scale:
            return f"{n / scale:.3g}{unit}"
    return f"{n:.3g}"
