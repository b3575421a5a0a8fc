"""The report of ``slr-verify check``: text (a table), JSON, or Markdown to attach to a paper.

Every line gives the claim, its location in the paper, the tier its verdict rests on (the
weakest among its evidence), the worst figure with its unit, the tolerance, and the verdict.
"""
from __future__ import annotations

import json
import textwrap

from .model import VERDICTS

__all__ = ["text", "as_json", "markdown", "counts", "exit_code"]


def _fig(x):
    if x is None:
        return "-"
    x = float(x)
    return f"{x:.3g}" if x == 0 or 1e-3 <= abs(x) < 1e4 else f"{x:.1e}"


def _worst(r):
    e = r.worst()
    if e is None:
        return "-", "-", "-"
    if e.counterexample is not None:
        return "counterexample", "-", "see evidence"
    return _fig(e.figure), _fig(e.tolerance), e.unit


def counts(results):
    return {v: sum(r.verdict == v for r in results) for v in VERDICTS}


def exit_code(results, allow_pending=False) -> int:
    """1 when any claim fails or is refuted, or is pending (unless ``allow_pending``); else 0."""
    c = counts(results)
    bad = c["fail"] + c["refuted"] + (0 if allow_pending else c["pending"])
    return 1 if bad else 0


def text(results) -> str:
    head = ("claim", "paper", "tier", "worst", "tolerance", "unit", "verdict")
    widths = [24, 22, 18, 14, 9, 26, 8]
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
            emit((r.claim.id, r.claim.where, r.tier, fig, tol, unit, r.verdict.upper()))
            if r.error:
                lines.append(f"    error: {r.error}")
            for e in r.evidence:
                if e.counterexample is not None:
                    lines.append(f"    counterexample ({e.route}): " + json.dumps(e.counterexample, default=float))
        lines.append("")
    c = counts(results)
    lines.append(", ".join(f"{c[v]} {v if v != 'pass' else 'passed'}" if v == "pass" else f"{c[v]} {v}" for v in VERDICTS))
    return "\n".join(lines)


def as_json(results) -> str:
    return json.dumps({"claims": [r.as_dict() for r in results], "counts": counts(results)}, indent=2, default=_json_default)


def _json_default(x):
    try:
        return float(x)
    except (TypeError, ValueError):
        return str(x)


def markdown(results, title="slr-verify report") -> str:
    out = [f"# {title}", "",
           "Claims of *Attention layers provably solve single-location regression* (Marion, Berthier, Biau, Boyer, "
           "ICLR 2025), each checked by independent routes. Tiers: proved (symbolic), proved (ball arithmetic), "
           "numeric, statistical. The mathematical reference is `docs/MATH.md` of slr-verify.", ""]
    c = counts(results)
    out += ["**Summary:** " + ", ".join(f"{c[v]} {v}" for v in VERDICTS), ""]
    for kind, head in (("paper", "Claims of the paper"), ("finding", "Findings beyond the paper")):
        rows = [r for r in results if r.claim.kind == kind]
        if not rows:
            continue
        out += [f"## {head}", "", "| claim | paper | statement | tier | worst | tolerance | verdict |", "|---|---|---|---|---|---|---|"]
        for r in rows:
            fig, tol, unit = _worst(r)
            out.append(f"| `{r.claim.id}` | {r.claim.where} | {r.claim.statement} | {r.tier} | {fig} {unit} | {tol} | **{r.verdict}** |")
        out.append("")
        for r in rows:
            out += [f"### `{r.claim.id}`: {r.verdict}", "", f"*{r.claim.where}.* {r.claim.statement}  ", f"Domain: {r.claim.domain}.", ""]
            if r.error:
                out += [f"Error: `{r.error}`", ""]
            out += ["| route | reference | tier | figure | tolerance | why | holds |", "|---|---|---|---|---|---|---|"]
            for e in r.evidence:
                fig = "counterexample" if e.counterexample is not None else f"{_fig(e.figure)} {e.unit}"
                out.append(f"| {e.route} | {e.reference} | {e.tier} | {fig} | {_fig(e.tolerance)} | {e.why} | {'yes' if e.holds else 'no'} |")
            for e in r.evidence:
                if e.counterexample is not None:
                    out += ["", "Counterexample:", "", "```json", json.dumps(e.counterexample, indent=1, default=_json_default), "```"]
            out.append("")
    return "\n".join(out)
