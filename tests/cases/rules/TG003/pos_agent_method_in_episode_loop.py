# Evaluating an RL agent whose class is passed in: agent.eval() makes it a
# module (by use), and get_action_and_value() runs its networks in the episode
# loop with autograd recording.
import numpy as np
import torch


def evaluate(make_env, Model, model_path, episodes, device):
    env = make_env()
    agent = Model(env).to(device)
    agent.load_state_dict(torch.load(model_path, map_location=device))
    agent.eval()
    obs, _ = env.reset()
    returns = []
    while len(returns) < episodes:
        actions, _, _, _ = agent.get_action_and_value(torch.Tensor(obs).to(device))
        obs, reward, done, _, info = env.step(actions.cpu().numpy())
        if done:
            returns.append(reward)
    return np.mean(returns)
