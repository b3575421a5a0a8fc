"""The report of ``slr-verify check``: text (a table), JSON, or Markdown to attach to a paper; and
the claims table of the README and the docs, generated from the registry (``--list``).

Every line gives the claim, its location in the paper, the tier of the evidence that establishes
it (corroborating tiers beside it), the worst figure with its unit and tolerance, the verdict
against the verdict the suite has established, and the time.
"""

from __future__ import annotations

import json
import math
import textwrap

from .vocabulary import TIERS, VERDICTS

__all__ = ["text", "as_json", "markdown", "counts", "exit_code", "claims_table", "unexpected"]

_SHORT = {"proved (symbolic)": "symbolic", "proved (ball arithmetic)": "ball", "numeric": "numeric", "statistical": "statistical"}


def _fig(x):
    if x is None:
        return "-"
    x = float(x)
    if math.isnan(x) or math.isinf(x):
        return str(x)
    return f"{x:.3g}" if x == 0 or 1e-3 <= abs(x) < 1e4 else f"{x:.1e}"


def _worst(r):
    e = r.worst()
    if e is None:
        return "-", "-", "-"
    if e.counterexample is not None:
        return "counterexample", "-", "see evidence"
    return _fig(e.figure), _fig(e.tolerance), e.unit


def _tier(r):
    also = r.corroborating_tiers
    return r.tier + (f" (also {', '.join(_SHORT[t] for t in also)})" if also else "")


def _verdict(r, short=False):
    """The verdict against the established one: 'pass', 'refuted, as established: ...',
    'FAIL (expected pass)', 'not run (needs ...)' (``short``: without the reasons)."""
    v = r.verdict
    if v == "not run":
        return "not run" if short else f"not run ({r.skipped})"
    if v == r.claim.expect:
        if v == "pass":
            return v
        return f"{v}, as established" if short else f"{v}, as established: {r.claim.reason}"
    return f"{v.upper()} (expected {r.claim.expect})"


def counts(results):
    return {v: sum(r.verdict == v for r in results) for v in VERDICTS}


def unexpected(results, allow_pending=False):
    """The results whose verdict is not the one the suite has established (``not run`` is never
    one; ``pending`` is not one with ``allow_pending``)."""
    return [r for r in results if not r.as_expected and not (allow_pending and r.verdict == "pending")]


def exit_code(results, allow_pending=False) -> int:
    """0 when every verdict is the established one (a claim not run for a missing extra
    included), 1 otherwise: a fail, a new refutation, an established refutation that no longer
    reproduces, a pending claim (unless ``allow_pending``)."""
    return 1 if unexpected(results, allow_pending) else 0


def text(results) -> str:
    head = ("claim", "paper", "tier", "worst", "tolerance", "unit", "seconds", "verdict")
    widths = [24, 20, 24, 14, 9, 24, 7, 22]
    lines = []

    def emit(cells):
        wrapped = [textwrap.wrap(str(c), w) or [""] for c, w in zip(cells, widths)]
        for i in range(max(len(w) for w in wrapped)):
            lines.append("  ".join((w[i] if i < len(w) else "").ljust(wd) for w, wd in zip(wrapped, widths)).rstrip())

    for kind, title in (("paper", "Claims of the paper"), ("finding", "Findings of the suite (beyond the paper)")):
        rows = [r for r in results if r.claim.kind == kind]
        if not rows:
            continue
        lines += [title, ""]
        emit(head)
        lines.append("  ".join("-" * w for w in widths))
        for r in rows:
            fig, tol, unit = _worst(r)
            emit((r.claim.id, r.claim.where, _tier(r), fig, tol, unit, f"{r.seconds:.1f}", _verdict(r, short=True)))
            if r.verdict != "pass" and _verdict(r) != _verdict(r, short=True):
                lines.append(f"    {_verdict(r)}")
            if r.error:
                lines.append(f"    error: {r.error}")
            for e in r.evidence:
                if e.counterexample is not None:
                    lines.append(f"    counterexample ({e.route}): " + json.dumps(e.counterexample, default=_json_default))
        lines.append("")
    c = counts(results)
    bad = unexpected(results)
    lines.append(
        ", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v] or v == "pass")
        + f"; {len(results) - len(bad)} of {len(results)} as established"
        + (f"; NOT as established: {', '.join(r.claim.id for r in bad)}" if bad else "")
    )
    return "\n".join(lines)


def as_json(results) -> str:
    doc = {"claims": [r.as_dict() for r in results], "counts": counts(results), "as_established": not unexpected(results)}
    return json.dumps(_finite(doc), indent=2, default=_json_default, allow_nan=False)


def _finite(x):
    """Strict JSON: non-finite floats become strings ('nan', 'inf')."""
    if isinstance(x, float) and not math.isfinite(x):
        return str(x)
    if isinstance(x, dict):
        return {str(k): _finite(v) for k, v in x.items()}
    if isinstance(x, (list, tuple)):
        return [_finite(v) for v in x]
    return x


def _json_default(x):
    try:
        f = float(x)
    except (TypeError, ValueError):
        return str(x)
    return f if math.isfinite(f) else str(f)


def _cell(x) -> str:
    """A Markdown table cell: pipes escaped, no line breaks."""
    return str(x).replace("\\", "\\\\").replace("|", "\\|").replace("\n", " ")


def _row(cells) -> str:
    return "| " + " | ".join(_cell(c) for c in cells) + " |"


def _sizes(e) -> str:
    return ", ".join(f"{k} {v}" for k, v in e.size.items()) or "-"


def markdown(results, title="slr-verify report") -> str:
    out = [
        f"# {title}",
        "",
        "Claims of *Attention layers provably solve single-location regression* (Marion, Berthier, Biau, Boyer, "
        "ICLR 2025), each checked by independent routes. Tiers: " + ", ".join(TIERS) + ". The mathematical reference "
        "is `docs/MATH.md` of slr-verify.",
        "",
    ]
    c = counts(results)
    bad = unexpected(results)
    out += [
        "**Summary:** "
        + ", ".join(f"{c[v]} {v}" for v in VERDICTS)
        + f"; {len(results) - len(bad)} of {len(results)} as established.",
        "",
    ]
    for kind, head in (("paper", "Claims of the paper"), ("finding", "Findings beyond the paper")):
        rows = [r for r in results if r.claim.kind == kind]
        if not rows:
            continue
        out += [
            f"## {head}",
            "",
            _row(("claim", "paper", "statement", "tier", "worst", "tolerance", "seconds", "verdict")),
            "|---|---|---|---|---|---|---|---|",
        ]
        for r in rows:
            fig, tol, unit = _worst(r)
            out.append(
                _row(
                    (
                        f"`{r.claim.id}`",
                        r.claim.where,
                        r.claim.statement,
                        _tier(r),
                        f"{fig} {unit}",
                        tol,
                        f"{r.seconds:.1f}",
                        f"**{_verdict(r)}**",
                    )
                )
            )
        out.append("")
        for r in rows:
            out += [
                f"### `{r.claim.id}`: {_verdict(r)}",
                "",
                f"*{r.claim.where}.* {r.claim.statement}  ",
                f"Domain: {r.claim.domain_text(r.mode)} ({r.mode} mode).",
                "",
            ]
            if r.error:
                out += [f"Error: `{r.error}`", ""]
            if not r.evidence:
                continue
            out += [
                _row(("route", "reference", "tier", "role", "figure", "tolerance", "why", "samples and seeds", "holds")),
                "|---|---|---|---|---|---|---|---|---|",
            ]
            for e in r.evidence:
                fig = "counterexample" if e.counterexample is not None else f"{_fig(e.figure)} {e.unit}"
                out.append(
                    _row(
                        (
                            e.route,
                            e.reference,
                            e.tier,
                            e.role,
                            fig,
                            _fig(e.tolerance),
                            e.why,
                            _sizes(e),
                            "yes" if e.holds else "no",
                        )
                    )
                )
            for e in r.evidence:
                if e.counterexample is not None:
                    out += [
                        "",
                        "Counterexample:",
                        "",
                        "```json",
                        json.dumps(_finite(e.counterexample), indent=1, default=_json_default),
                        "```",
                    ]
            out.append("")
    return "\n".join(out)


def claims_table(claims) -> str:
    """The claims table and the findings list, in Markdown, generated from the registry (the
    README and ``docs/claims.md`` carry it between markers; a test keeps them current)."""
    out = []
    for kind, head in (("paper", "Claims of the paper"), ("finding", "Findings of the suite")):
        rows = [c for c in claims if c.kind == kind]
        out += [
            f"**{head}**",
            "",
            _row(("id", "paper", "statement", "domain (default mode)", "established verdict")),
            "|---|---|---|---|---|",
        ]
        for c in rows:
            v = c.expect if c.expect == "pass" else f"{c.expect}: {c.reason}"
            if c.needs:
                v += f" (needs the {c.needs} extra)"
            out.append(_row((f"`{c.id}`", c.where, c.statement, c.domain_text("default"), v)))
        out.append("")
    return "\n".join(out).rstrip() + "\n"
