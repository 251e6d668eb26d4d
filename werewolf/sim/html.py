"""The HTML report: one self-contained page (inline CSS, charts as base64 PNG) that a designer can mail.

Nothing on the page is fetched from elsewhere: no script, no font, no style sheet, no image by URL.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping, Sequence
from html import escape
from pathlib import Path
from typing import Any

from werewolf.core.errors import SetupError
from werewolf.sim.report import TableData

CSS = """
body { font: 15px/1.45 system-ui, -apple-system, "Segoe UI", "Noto Sans", "PingFang TC", sans-serif;
       margin: 2em auto; max-width: 72em; padding: 0 1em; color: #222; }
h1 { font-size: 1.5em; margin-bottom: .2em; } h2 { font-size: 1.15em; margin-top: 1.8em; }
table { border-collapse: collapse; margin: .5em 0 .3em; }
th, td { border-bottom: 1px solid #ddd; padding: .25em .7em; vertical-align: top; }
th { background: #f3f3f3; text-align: left; } td.num { text-align: right; font-variant-numeric: tabular-nums; }
dl.setup { display: grid; grid-template-columns: max-content 1fr; gap: .2em 1em; }
dl.setup dt { font-weight: 600; } dl.setup dd { margin: 0; overflow-wrap: anywhere; }
.note { color: #555; font-size: .9em; } .warn { background: #fff4d6; border-left: 4px solid #e0a800;
        padding: .4em .8em; } img { max-width: 100%; height: auto; }
"""


def check_path(path: str) -> None:
    if Path(path).suffix.lower() not in (".html", ".htm"):
        raise SetupError(f"--report {path!r}: the report is an HTML file (name it .html)")
    if not Path(path).absolute().parent.is_dir():
        raise SetupError(f"cannot write {path}: no such folder")


def table_html(t: TableData) -> str:
    head = "".join(f"<th>{escape(c)}</th>" for c in t.columns)
    rows = []
    for row in t.rows:
        cells = "".join(f"<td>{escape(v)}</td>" if k < t.left else f'<td class="num">{escape(v)}</td>'
                        for k, v in enumerate(row))
        rows.append(f"<tr>{cells}</tr>")
    note = f'<p class="note">{escape(t.note)}</p>' if t.note else ""
    return f"<h2>{escape(t.title)}</h2>\n<table><thead><tr>{head}</tr></thead><tbody>{''.join(rows)}</tbody></table>" \
           + note


def page(title: str, setup: Mapping[str, Any], tables: Sequence[TableData], charts: Sequence[bytes] = (),
         warnings: Sequence[str] = (), notes: Sequence[str] = ()) -> str:
    """The whole page: title, setup, warnings, charts, tables, notes."""
    parts = ['<!DOCTYPE html>\n<html lang="en">\n<head>\n<meta charset="utf-8">',
             '<meta name="viewport" content="width=device-width, initial-scale=1">',
             f"<title>{escape(title)}</title>\n<style>{CSS}</style>\n</head>\n<body>",
             f"<h1>{escape(title)}</h1>", "<h2>setup</h2>", '<dl class="setup">']
    for key, value in setup.items():
        parts.append(f"<dt>{escape(str(key))}</dt><dd>{escape(str(value))}</dd>")
    parts.append("</dl>")
    for w in warnings:
        parts.append(f'<p class="warn">{escape(w)}</p>')
    for png in charts:
        data = base64.b64encode(png).decode("ascii")
        parts.append(f'<p><img alt="chart" src="data:image/png;base64,{data}"></p>')
    parts.extend(table_html(t) for t in tables)
    parts.extend(f'<p class="note">{escape(n)}</p>' for n in notes)
    parts.append("</body>\n</html>\n")
    return "\n".join(parts)


def write(path: str, text: str) -> None:
    try:
        Path(path).write_text(text, encoding="utf-8")
    except OSError as e:
        raise SetupError(f"cannot write {path}: {e.strerror}") from None
