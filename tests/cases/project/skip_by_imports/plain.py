# Imports only modules that name no training library: skipped, nothing to say.
from util import chunks

for part in chunks(list(range(10)), 3):
    print(sum(part))
