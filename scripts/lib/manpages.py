#!/usr/bin/env python3
"""Man pages for cowatch and each of its commands, from `cowatch --experimental-dump-help`
(ArgumentParser's description of every command, option and flag) on stdin.

    cowatch --experimental-dump-help | manpages.py OUTDIR VERSION

Writes OUTDIR/cowatch.1 and OUTDIR/cowatch-COMMAND.1 (roff, man(7) macros), so that the
pages say exactly what `cowatch help COMMAND` says: both come from the same declarations.
"""
import datetime
import json
import os
import sys


def roff(text):
    """Text safe in roff: backslashes escaped, no line starting with a control character."""
    text = (text or "").replace("\\", "\\e")
    lines = []
    for line in text.split("\n"):
        if line.startswith((".", "'")):
            line = "\\&" + line
        lines.append(line.replace("-", "\\-"))
    return "\n".join(lines)


def spelled(name):
    kind, text = name["kind"], name["name"]
    return {"long": "--", "short": "-", "longWithSingleDash": "-"}.get(kind, "--") + text


def synopsis(command, path):
    parts = [f".B {path}"]
    for arg in command.get("arguments", []):
        if not arg.get("shouldDisplay", True):
            continue
        if arg["kind"] == "positional":
            item = f"\\fI{arg.get('valueName', 'value')}\\fR"
        else:
            preferred = arg.get("preferredName") or arg["names"][0]
            item = f"\\fB{roff(spelled(preferred))}\\fR"
            if arg["kind"] == "option":
                item += f" \\fI{arg.get('valueName', 'value')}\\fR"
        if arg.get("isRepeating"):
            item += " ..."
        parts.append(f"[{item}]" if arg.get("isOptional") else item)
    return " ".join(parts)


def page(command, path, version, date):
    title = path.replace(" ", "-")
    out = [
        f'.TH "{title.upper()}" "1" "{date}" "cowatch {version}" "Cowatch"',
        ".SH NAME",
        f"{roff(title)} \\- {roff(command.get('abstract', ''))}",
        ".SH SYNOPSIS",
        synopsis(command, path),
    ]
    if command.get("discussion"):
        out += [".SH DESCRIPTION", roff(command["discussion"])]
    shown = [a for a in command.get("arguments", []) if a.get("shouldDisplay", True)]
    if shown:
        out.append(".SH OPTIONS")
        for arg in shown:
            if arg["kind"] == "positional":
                head = f"\\fI{arg.get('valueName', 'value')}\\fR"
            else:
                head = ", ".join(f"\\fB{roff(spelled(n))}\\fR" for n in arg["names"])
                if arg["kind"] == "option":
                    head += f" \\fI{arg.get('valueName', 'value')}\\fR"
            out += [".TP", head]
            text = arg.get("abstract", "")
            if arg.get("discussion"):
                text += "\n" + arg["discussion"]
            if arg.get("defaultValue") not in (None, ""):
                text += f" (default: {arg['defaultValue']})"
            out.append(roff(text) or "\\&")
    subs = [s for s in command.get("subcommands", []) if s.get("shouldDisplay", True)]
    subs = [s for s in subs if s["commandName"] != "help"]
    if subs:
        out.append(".SH COMMANDS")
        for sub in subs:
            out += [".TP", f"\\fB{roff(path + ' ' + sub['commandName'])}\\fR",
                    roff(sub.get("abstract", ""))]
        out += [".SH SEE ALSO",
                ", ".join(f"\\fB{roff(path.replace(' ', '-') + '-' + s['commandName'])}\\fR(1)"
                          for s in subs)]
    return "\n".join(out) + "\n"


def write(command, path, outdir, version, date, written):
    name = path.replace(" ", "-") + ".1"
    with open(os.path.join(outdir, name), "w", encoding="utf-8") as f:
        f.write(page(command, path, version, date))
    written.append(name)
    for sub in command.get("subcommands", []):
        if sub.get("shouldDisplay", True) and sub["commandName"] != "help":
            write(sub, path + " " + sub["commandName"], outdir, version, date, written)


def main():
    if len(sys.argv) != 3:
        sys.exit("usage: manpages.py OUTDIR VERSION < dump-help.json")
    outdir, version = sys.argv[1], sys.argv[2]
    info = json.load(sys.stdin)
    # The date of the build's source, not of the moment, so a rebuild gives the same pages.
    epoch = int(os.environ.get("SOURCE_DATE_EPOCH", "0")) or None
    date = (datetime.datetime.fromtimestamp(epoch, datetime.timezone.utc) if epoch
            else datetime.datetime.now(datetime.timezone.utc)).strftime("%Y-%m-%d")
    written = []
    write(info["command"], info["command"]["commandName"], outdir, version, date, written)
    print(f"manpages: {len(written)} pages", file=sys.stderr)


if __name__ == "__main__":
    main()
