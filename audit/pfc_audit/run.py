"""python3 -m pfc_audit.run [--report FILE] [--pfc BIN] SCRIPT [ARGS...]

Runs SCRIPT as __main__ under the global hooks, lets one optimizer step
happen, stops it, and writes the findings for `pfc audit` (cli/audit.c), one
per line:

    pfc-audit 1
    F <code> <name> <severity> <path> <line> <message> <help>
    C <what the script raised, where>

fields separated by tabs; backslash, tab and newline escaped as \\\\, \\t, \\n;
an unknown path is empty and an unknown line 0. Exit status 0, or 2 when
the arguments are wrong."""
import json
import os
import runpy
import subprocess
import sys
import traceback

from . import sites
from .checks import run_checks
from .session import Session, StopAudit

PROTOCOL = "pfc-audit 1"


def _escape(s):
    return ("" if s is None else str(s)).replace("\\", "\\\\").replace("\t", "\\t") \
        .replace("\n", "\\n").replace("\r", "\\r")


def _shown_path(path):
    if not path:
        return ""
    rel = os.path.relpath(path)
    return path if rel.startswith("..") else rel


def _crash_text(exc):
    """'ValueError: msg (train.py:12)': the user's innermost frame."""
    where = ""
    for frame in reversed(traceback.extract_tb(exc.__traceback__)):
        if sites.is_user_file(frame.filename):
            where = " (%s:%d)" % (_shown_path(frame.filename), frame.lineno)
            break
    text = str(exc).strip().splitlines()
    return "%s%s%s" % (type(exc).__name__, ": " + text[0] if text else "", where)


def estimate_peak(pfc, script):
    """pfc estimate's projected allocated peak in bytes; -1 when it cannot tell;
    None when there is no pfc binary to ask."""
    if not pfc:
        return None
    try:
        out = subprocess.run([pfc, "estimate", script, "--json"], capture_output=True,
                             text=True, timeout=120).stdout
        peak = json.loads(out).get("allocated_peak_bytes")
        return int(peak) if peak else -1
    except (OSError, ValueError, subprocess.SubprocessError):
        return -1


def run_script(script, args):
    """Runs the script under a Session; returns (session, crash text or None)."""
    session = Session(stop_after_step=True)
    saved_argv, saved_path0 = sys.argv, sys.path[0]
    sys.argv = [script] + list(args)
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    crash = None
    session.watch_globally()
    try:
        runpy.run_path(script, run_name="__main__")
    except StopAudit:
        pass
    except SystemExit as e:
        if e.code not in (None, 0):
            crash = "the script exited with status %s" % e.code
    except BaseException as e:   # the script's own failure, reported as such
        crash = _crash_text(e)
    finally:
        session.close()
        sys.argv, sys.path[0] = saved_argv, saved_path0
    return session, crash


def write_report(out, findings, crash):
    out.write(PROTOCOL + "\n")
    for f in findings:
        fields = ["F", f.code, f.name, f.severity, _shown_path(f.path), f.line or 0,
                  f.message, f.help]
        out.write("\t".join(_escape(x) for x in fields) + "\n")
    if crash:
        out.write("C\t%s\n" % _escape(crash))


def main(argv):
    report, pfc = None, os.environ.get("PFC_BIN")
    while argv and argv[0] in ("--report", "--pfc"):
        if len(argv) < 2:
            print("pfc_audit.run: %s expects a value" % argv[0], file=sys.stderr)
            return 2
        report, pfc = (argv[1], pfc) if argv[0] == "--report" else (report, argv[1])
        argv = argv[2:]
    if argv and argv[0] == "--":
        argv = argv[1:]
    if not argv:
        print(__doc__.splitlines()[0], file=sys.stderr)
        return 2
    script, args = argv[0], argv[1:]
    session, crash = run_script(script, args)
    findings, _ = run_checks(session, estimate=estimate_peak(pfc, script))
    if report:
        with open(report, "w", encoding="utf-8") as out:
            write_report(out, findings, crash)
    else:
        write_report(sys.stdout, findings, crash)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
