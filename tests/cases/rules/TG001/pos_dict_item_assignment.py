# Model outputs stored in a dict that outlives the loop keep their graphs: no backward frees them (TG001 error).
import torch
import torch.nn as nn

encoder = nn.Sequential(nn.Linear(300, 128), nn.Tanh())
encoder.load_state_dict(torch.load("encoder.pt"))
documents = torch.load("docs.pt")

embeddings = {}
for doc_id, features in documents.items():
    emb = encoder(features)
    embeddings[doc_id] = emb

torch.save({k: v.detach() for k, v in embeddings.items()}, "embeddings.pt")
