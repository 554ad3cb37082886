"""What a CLI case prints of `pfc estimate --json` output (the file named
first): the parameter count, with `weights` the weight bytes, and the
refusal's message or None. Shared by the estimate_*.sh cases."""
import json
import sys

j = json.load(open(sys.argv[1]))
print('params_total', j['params_total'])
if 'weights' in sys.argv[2:]:
    print('weights', (j.get('components') or {}).get('weights'))
e = j['error']
print('error', e['message'] if e else None)
