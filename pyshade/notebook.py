"""How pyshade objects show in notebooks (``_repr_html_``): a kernel as its signature
and the source of every target, highlighted by Pygments where it is installed."""

from __future__ import annotations

import html
import inspect
from typing import Any

from . import targets

# target -> Pygments lexer name (what each language reads most like)
_LEXERS = {"wgsl": "wgsl", "glsl": "glsl", "hlsl": "hlsl", "msl": "cpp", "cuda": "cuda",
           "python": "python"}


def highlight(text: str, target: str) -> str:
    """``text`` as HTML, highlighted for ``target`` where Pygments has a lexer."""
    try:
        from pygments import highlight as pyg
        from pygments.formatters import HtmlFormatter
        from pygments.lexers import get_lexer_by_name
        lexer = get_lexer_by_name(_LEXERS.get(target, target))
    except Exception:  # noqa: BLE001 - Pygments missing or no lexer: plain text
        return f"<pre>{html.escape(text)}</pre>"
    return pyg(text, lexer, HtmlFormatter(noclasses=True, nowrap=False))


def kernel_html(k: Any) -> str:
    """The HTML view of kernel ``k``."""
    from .errors import PyshadeError
    try:        # annotations as the kernel's module sees them, also under PEP 563
        sig = f"{k.__name__}{inspect.signature(k.fn, eval_str=True)}"
    except Exception:  # noqa: BLE001 - an annotation that does not evaluate here
        try:
            sig = f"{k.__name__}{inspect.signature(k.fn)}"
        except (TypeError, ValueError):
            sig = k.__name__
    bindings = {tv.__name__: tv.__constraints__[0] for tv in k.typevars()
                if tv.__constraints__}
    shown = ", ".join(f"{n}={getattr(v, 'name', v)}" for n, v in bindings.items())
    parts = [f"<p><b>pyshade kernel</b> <code>{html.escape(sig)}</code>, workgroup size "
             f"{k.workgroup_size}" + (f", shown with {html.escape(shown)}" if shown else "")
             + "</p>"]
    for t in targets.TARGETS:
        try:
            body = highlight(k.source(t, **bindings), t)
        except PyshadeError as e:
            body = f"<pre>{html.escape(str(e))}</pre>"
        parts.append(f"<details><summary>{html.escape(t)}</summary>{body}</details>")
    return "".join(parts)
