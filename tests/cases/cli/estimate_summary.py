"""What a CLI case prints of `pfc estimate --json` output (the file named
first): the parameter count, with `weights` the weight bytes, `batch` the
batch, `notes` (or `assumptions`) each assumption line, `peak` the allocated
peak, and the refusal's message (with its line on `line`) or None. Shared by
the estimate_*.sh cases."""
import json
import sys

j = json.load(open(sys.argv[1]))
print('params_total', j['params_total'])
if 'weights' in sys.argv[2:]:
    print('weights', (j.get('components') or {}).get('weights'))
if 'batch' in sys.argv[2:]:
    print('batch', j.get('batch'))
if 'notes' in sys.argv[2:]:
    for a in j.get('assumptions') or []:
        print('note', a)
if 'peak' in sys.argv[2:]:
    print('allocated_peak_bytes', j.get('allocated_peak_bytes'))
if 'assumptions' in sys.argv[2:]:
    for a in j.get('assumptions') or []:
        print('assumption', a)
e = j['error']
if e and 'line' in sys.argv[2:]:
    print('error line', e.get('line'))
print('error', e['message'] if e else None)
