"""The report of ``slr-verify check``: text (a table), JSON, or Markdown to attach to a paper; and
the claims table of the README and the docs, generated from the registry (``--list``).

Every line gives the claim, its location in the paper, the tier of the evidence that establishes
it (corroborating tiers beside it), the worst figure with its unit and tolerance, the verdict
against the verdict the suite has established, and the time. The header says the mode and the
setting: at a user's setting (``slr-verify check --setting``) which claims ran there and which are
tied to the paper's settings (each row says which, and why a parameterised claim is outside its
range there); each claim's domain (Markdown, JSON) says what the mode covered.
"""

from __future__ import annotations

import json
import math
import textwrap

from ..model import tiers as T
from .vocabulary import TIERS, VERDICTS

#: what each mode covers (each claim's domain says it precisely)
MODE_TEXT = {
    "fast": "the smallest samples, what the tests run: fewer points, runs and replayed certificates than the default "
            "(oracle-window replays a point certificate, not the window's)",
    "default": "the default samples, the committed certificates replayed",
    "thorough": "the paper's full run counts and horizons, the certificates searched afresh",
}

_SHORT = {T.SYMBOLIC: "symbolic", T.BALL: "ball", T.CITED: "ball + cited", T.ENCLOSED: "enclosed",
          T.NUMERIC: "numeric", T.STATISTICAL: "statistical"}


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


def coverage(results, setting=None) -> dict:
    """Which claims ran where: ``{"user": [ids], "paper": [ids], "outside": {id: why}}``: at the user's ``setting``
    (parameterised claims in their range), tied to the paper's, and parameterised but outside their range there (run
    at the paper's). Without a setting every claim is ``paper``."""
    out = {"user": [], "paper": [], "outside": {}}
    for r in results:
        c = r.claim
        if r.setting.user:
            out["user"].append(c.id)
        else:
            out["paper"].append(c.id)
            why = c.outside(setting) if setting is not None and c.parameterised else None
            if why:
                out["outside"][c.id] = why
    return out


def _ids(ids) -> str:
    return ", ".join(ids) if ids else "none"


def header(results, setting=None) -> list:
    """The report's header lines: the mode (what it covers) and the setting (which claims ran at it)."""
    mode = results[0].mode if results else "default"
    lines = [f"slr-verify check, {mode} mode: {MODE_TEXT[mode]}; each claim's domain (--markdown, --json) states what "
             "this mode covered."]
    cov = coverage(results, setting)
    if setting is None:
        para = [r.claim.id for r in results if r.claim.parameterised]
        lines.append("Setting: every claim at the paper's settings" + (
            f" (--setting gamma2=G,eps=E,d=D,L=N runs the parameterised claims at yours: {_ids(para)})" if para else "")
            + ".")
        return lines
    tied = [i for i in cov["paper"] if i not in cov["outside"]]
    parts = [f"Setting: {setting.text} (yours). Ran at it: {_ids(cov['user'])}."]
    if tied:
        parts.append(f"Tied to the paper's settings (a statement about the paper's setting or figure, or a check not "
                     f"parameterised), ran there: {_ids(tied)}.")
    if cov["outside"]:
        parts.append("Parameterised but outside their range at yours, ran at the paper's: "
                     + "; ".join(f"{i} ({why})" for i, why in cov["outside"].items()) + ".")
    lines.append(" ".join(parts))
    return lines


def _where(r) -> str:
    return "yours" if r.setting.user else "paper"


def counts(results):
    return {v: sum(r.verdict == v for r in results) for v in VERDICTS}


def unexpected(results, allow_pending=False):
    """The results whose verdict is not the one the suite has established (``not run`` is never
    one; ``pending`` is not one with ``allow_pending``)."""
    return [r for r in results if not r.as_expected and not (allow_pending and r.verdict == "pending")]


def summary(results, seconds=None) -> str:
    """The report's last line: the verdicts' counts, then how many claims ran and whether as established (a claim that
    did not run is never counted as established: "N of M ran, all as established; K not run (needs ...: ids)"), and
    the total time when given (wall clock)."""
    c = counts(results)
    bad = unexpected(results)
    ran = [r for r in results if r.verdict != "not run"]
    why = {}
    for r in results:
        if r.verdict == "not run":
            why.setdefault(str(r.skipped).split(":")[0], []).append(r.claim.id)
    out = (", ".join(f"{c[v]} {v}" for v in VERDICTS if c[v] or v == "pass")
           + f"; {len(ran)} of {len(results)} ran, "
           + ("all as established" if not bad else f"{len(ran) - len(bad)} as established, NOT as established: "
              + ", ".join(r.claim.id for r in bad)))
    if why:
        out += f"; {len(results) - len(ran)} not run (" + "; ".join(f"{k}: {', '.join(v)}" for k, v in why.items()) + ")"
    if seconds is not None:
        out += f"; total {seconds:.1f} s (wall clock)" if seconds >= 1 else f"; total {seconds:.2g} s (wall clock)"
    return out


def exit_code(results, allow_pending=False) -> int:
    """0 when every verdict is the established one (a claim not run for a missing extra
    included), 1 otherwise: a fail, a new refutation, an established refutation that no longer
    reproduces, a pending claim (unless ``allow_pending``)."""
    return 1 if unexpected(results, allow_pending) else 0


def text(results, setting=None, seconds=None) -> str:
    """The table; with a user's ``setting`` a column says where each claim ran (``yours`` or ``paper``); the summary
    (:func:`summary`) with the total time ``seconds`` when given."""
    head = ("claim", "paper", "tier", "worst", "tolerance", "unit", "seconds", "verdict")
    widths = [24, 20, 24, 14, 9, 24, 7, 22]
    if setting is not None:
        head, widths = head[:2] + ("setting",) + head[2:], widths[:2] + [7] + widths[2:]
    lines = []
    for line in header(results, setting):
        lines += textwrap.wrap(line, 150, subsequent_indent="  ")
    lines.append("")

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
            cells = (r.claim.id, r.claim.where, _tier(r), fig, tol, unit, f"{r.seconds:.1f}", _verdict(r, short=True))
            emit(cells if setting is None else cells[:2] + (_where(r),) + cells[2:])
            why = r.claim.outside(setting) if setting is not None and r.claim.parameterised else None
            if why:
                lines.append(f"    ran at the paper's setting, outside this check's range at yours: {why}")
            if r.verdict != "pass" and _verdict(r) != _verdict(r, short=True):
                lines.append(f"    {_verdict(r)}")
            if r.error:
                lines.append(f"    error: {r.error}")
            for e in r.evidence:
                if e.counterexample is not None:
                    lines.append(f"    counterexample ({e.route}): " + json.dumps(e.counterexample, default=_json_default))
        lines.append("")
    lines.append(summary(results, seconds))
    return "\n".join(lines)


def as_json(results, setting=None, seconds=None) -> str:
    """The report as strict JSON: each claim with its ``setting`` ({gamma2, eps, d, L, source: "user" | "paper"}); at
    the top the mode, the user's setting (or null), the header and which claims ran where (:func:`coverage`), and the
    total time ``seconds`` (wall clock; null when not given)."""
    doc = {"mode": results[0].mode if results else None, "setting": setting.as_dict() if setting is not None else None,
           "header": header(results, setting), "coverage": coverage(results, setting),
           "claims": [r.as_dict() for r in results], "counts": counts(results), "as_established": not unexpected(results),
           "seconds": seconds}
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


def markdown(results, title="slr-verify report", setting=None, seconds=None) -> str:
    """The report as Markdown: the header, the summary, per kind (paper, finding) a table of the claims and a section
    per claim with its evidence table and counterexamples."""
    out = [
        f"# {title}",
        "",
        "Claims of *Attention layers provably solve single-location regression* (Marion, Berthier, Biau, Boyer, "
        "ICLR 2025), each checked by independent routes. Tiers: " + ", ".join(TIERS) + ". The mathematical reference "
        "is `docs/MATH.md` of slr-verify.",
        "",
    ]
    out += [line + "  " for line in header(results, setting)] + [""]
    out += ["**Summary:** " + summary(results, seconds) + ".", ""]
    for kind, head in (("paper", "Claims of the paper"), ("finding", "Findings beyond the paper")):
        rows = [r for r in results if r.claim.kind == kind]
        if rows:
            out += _markdown_table(head, rows, setting)
            for r in rows:
                out += _markdown_claim(r)
    return "\n".join(out)


def _markdown_table(head, rows, setting):
    cols = ("claim", "paper", "statement", "tier", "worst", "tolerance", "seconds", "verdict")
    if setting is not None:
        cols = cols[:3] + ("setting",) + cols[3:]
    out = [f"## {head}", "", _row(cols), "|" + "---|" * len(cols)]
    for r in rows:
        fig, tol, unit = _worst(r)
        cells = (f"`{r.claim.id}`", r.claim.where, r.claim.statement, _tier(r), f"{fig} {unit}", tol,
                 f"{r.seconds:.1f}", f"**{_verdict(r)}**")
        out.append(_row(cells if setting is None else cells[:3] + (_where(r),) + cells[3:]))
    return out + [""]


def _markdown_claim(r):
    out = [
        f"### `{r.claim.id}`: {_verdict(r)}",
        "",
        f"*{r.claim.where}.* {r.claim.statement}  ",
        f"Setting: {r.setting.described}.  ",
        f"Domain: {r.claim.domain_text(r.mode, r.setting if r.setting.user else None)} ({r.mode} mode).",
        "",
    ]
    if r.error:
        out += [f"Error: `{r.error}`", ""]
    if not r.evidence:
        return out
    out += [_row(("route", "reference", "tier", "role", "figure", "tolerance", "why", "samples and seeds", "holds")),
            "|---|---|---|---|---|---|---|---|---|"]
    for e in r.evidence:
        fig = "counterexample" if e.counterexample is not None else f"{_fig(e.figure)} {e.unit}"
        out.append(_row((e.route, e.reference, e.tier, e.role, fig, _fig(e.tolerance), e.why, _sizes(e),
                         "yes" if e.holds else "no")))
    for e in r.evidence:
        if e.counterexample is not None:
            out += ["", "Counterexample:", "", "```json",
                    json.dumps(_finite(e.counterexample), indent=1, default=_json_default), "```"]
    return out + [""]


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
