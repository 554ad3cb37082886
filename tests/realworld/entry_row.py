"""One row of entry_points.sh: the JSON of `pfc estimate --json` on stdin."""
import json
import sys

path = sys.argv[1]
try:
    report = json.load(sys.stdin)
except ValueError:
    print(path + "\tnoparse")
    sys.exit()
err = report.get("error")
if err is None:
    print("\t".join([path, "ok", str(report.get("projected_peak_bytes")),
                     str(report.get("ops_assumed", ""))]))
else:
    msg = err if isinstance(err, str) else err.get("message", str(err))
    print("\t".join([path, "refused", " ".join(msg.split())]))
