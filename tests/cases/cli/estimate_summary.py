"""What a CLI case prints of `pfc estimate --json` output (the file named
first): the parameter count, with `weights` the weight bytes, `batch` the
batch, `notes` the assumptions, and the refusal's message or None. Shared by the estimate_*.sh cases."""
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
e = j['error']
print('error', e['message'] if e else None)
