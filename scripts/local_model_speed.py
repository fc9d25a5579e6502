"""How fast the bundled model answers here: prompt tokens per second (cold) and generated tokens per second.

Starts the local lane's server (as ``--granularity-agent=local`` does) for each thread count,
sends a request whose prompt is about ``--prompt-tokens`` long (its first words differ per
round, so nothing is served from the cache), then a short request that makes the model count
for ``--generate`` tokens, and prints the medians over ``--repeat`` rounds.
``--sharing`` instead plays two runs at once, each a
conversation that grows by one observation a turn, against one shared server (2 threads) and
against a server each (1 thread): what ``-n 2`` chooses between. Measure on a quiet machine:
another busy core slows llama.cpp far more than it slows Python.

    python scripts/local_model_speed.py [--threads 1 2] [--prompt-tokens 2000] [--repeat 3]
    python scripts/local_model_speed.py --sharing [--turns 6]
"""

from __future__ import annotations

import argparse
import statistics
import threading
import time

from pytest_granularity.agents.local_model import DEFAULT_MODEL, LocalSend, LocalServer, LocalSettings, model_file


def _body(words: int, prefix: str, generate: int, ask: str = "") -> dict[str, object]:
    """A prompt whose first tokens differ per round, so no round reuses another's cached prefix."""
    return {
        "model": "m",
        "messages": [{"role": "user", "content": prefix + " " + "word " * words + ask}],
        "temperature": 0,
        "max_completion_tokens": generate,
    }


_COUNT = "\nCount from 1 to 100, the numbers separated by commas: 1, 2, 3,"


def measure(threads: int, words: int, generate: int, repeat: int) -> tuple[float, float]:
    """Median prompt tokens/s (cold) and generated tokens/s for one server.

    Generation is measured on a short counting prompt: after a long run of one word the model
    ends its reply at once, which would time nothing but the prompt.
    """
    server = LocalServer(LocalSettings(model_file(DEFAULT_MODEL), "m", threads=threads, max_tokens=generate))
    send = LocalSend(server)
    cold, warm = [], []
    try:
        for round_ in range(repeat):
            started = time.monotonic()
            answer = send(_body(words, f"Round {round_}.", 1), "cold")
            cold.append(answer["usage"]["prompt_tokens"] / (time.monotonic() - started))
            started = time.monotonic()
            answer = send(_body(0, f"Round {round_}.", generate, _COUNT), "generate")
            warm.append(answer["usage"]["completion_tokens"] / (time.monotonic() - started))
    finally:
        server.stop()
    return statistics.median(cold), statistics.median(warm)


def play(send: LocalSend, run: int, words: int, turns: int) -> None:
    """One run's turns: the same opening, then one more observation each turn."""
    messages = [{"role": "user", "content": f"run {run}: " + "word " * words}]
    for turn in range(turns):
        send({"model": "m", "messages": messages, "temperature": 0, "max_completion_tokens": 16}, f"run {run}")
        messages = [*messages, {"role": "user", "content": f"observation {turn}: " + "line " * 60}]


def sharing(words: int, turns: int) -> dict[str, float]:
    """Wall seconds for two concurrent runs on one shared server and on a server each."""
    walls = {}
    for name, threads, servers in (("shared", 2, 1), ("per worker", 1, 2)):
        started = [LocalServer(LocalSettings(model_file(DEFAULT_MODEL), "m", threads=threads)) for _ in range(servers)]
        sends = [LocalSend(server) for server in started]
        for send in sends:
            send(_body(1, "Warm up.", 1), "warm up")
        begin = time.monotonic()
        players = [threading.Thread(target=play, args=(sends[run % servers], run, words, turns)) for run in (0, 1)]
        for player in players:
            player.start()
        for player in players:
            player.join()
        walls[name] = time.monotonic() - begin
        for server in started:
            server.stop()
    return walls


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--threads", type=int, nargs="+", default=[1, 2])
    parser.add_argument("--prompt-tokens", type=int, default=2000)
    parser.add_argument("--generate", type=int, default=64)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--sharing", action="store_true", help="compare one shared server with one per worker")
    parser.add_argument("--turns", type=int, default=6)
    args = parser.parse_args()
    if args.sharing:
        walls = sharing(args.prompt_tokens, args.turns)
        print(", ".join(f"{name}: {wall:.1f} s" for name, wall in walls.items()) + " for two concurrent runs")
        return
    for threads in args.threads:
        prompt, generated = measure(threads, args.prompt_tokens, args.generate, args.repeat)
        print(f"threads {threads}: prompt {prompt:.0f} tokens/s (cold), generation {generated:.0f} tokens/s")


if __name__ == "__main__":
    main()
