"""``search_skills`` CPU time on a library kept by ``skills_routing.py --latency-only --keep DIR``, for comparing
two trees on one library (run it with each tree's ``src`` on ``PYTHONPATH``, alternately) or profiling a search.

    python bench/skills_latency_ab.py DIR [--threads 0] [--profile]

The 300 questions are the latency step's (CLINC val + oos_val, the same seed); 5 warm-up searches first (the
model and the library's snapshot load). Prints CPU and wall p50 of a search and CPU p50 of the query embedding
alone, with the load average; ``--profile`` prints cProfile's top functions instead, timed in CPU time. Every
search counts a use, so the library changes (as in the bench's own latency step).
"""

from __future__ import annotations

import os

os.environ.setdefault("OPENBLAS_NUM_THREADS", "1")  # as the CLI and the server run (set before numpy loads)

import argparse  # noqa: E402
import cProfile  # noqa: E402
import pstats  # noqa: E402
import time  # noqa: E402
from pathlib import Path  # noqa: E402

import numpy as np  # noqa: E402
import skills_fit  # noqa: E402

from graphlore.config import Settings  # noqa: E402
from graphlore.embedding import OnnxEmbedder  # noqa: E402
from graphlore.runtime import Runtime  # noqa: E402

DATA = Path(__file__).resolve().parent.parent.parent / "shared" / "data"


def questions(repeat: int) -> tuple[list[str], list[str]]:
    """The latency step's questions (``skills_routing.latency``: val then oos_val, permuted with seed 1) and its
    5 warm-up questions."""
    every = [t for t, _ in skills_fit.clinc(DATA, "val")] + [t for t, _ in skills_fit.clinc(DATA, "oos_val")]
    return [every[i] for i in np.random.default_rng(1).permutation(len(every))[:repeat]], every[-5:]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("home", type=Path, help="the data folder --keep kept (library 'scale')")
    parser.add_argument("--threads", type=int, default=0, help="embedding threads (0: onnxruntime's default)")
    parser.add_argument("--repeat", type=int, default=300)
    parser.add_argument("--profile", action="store_true", help="cProfile the searches (CPU time) instead")
    args = parser.parse_args()
    picked, warm_up = questions(args.repeat)
    runtime = Runtime(Settings(home=args.home), embedder=OnnxEmbedder(threads=args.threads))
    for question in warm_up:
        skills_fit.call(runtime, "search_skills", query=question, library="scale")
    if args.profile:
        profile = cProfile.Profile(time.process_time)
        profile.enable()
        for question in picked:
            skills_fit.call(runtime, "search_skills", query=question, library="scale")
        profile.disable()
        pstats.Stats(profile).sort_stats("cumulative").print_stats(45)
    else:
        wall, cpu, embed = [], [], []
        for question in picked:
            began, began_cpu = time.perf_counter(), time.process_time()
            skills_fit.call(runtime, "search_skills", query=question, library="scale")
            wall.append((time.perf_counter() - began) * 1000)
            cpu.append((time.process_time() - began_cpu) * 1000)
        for question in picked:
            began_cpu = time.process_time()
            runtime.embedder.embed([question])
            embed.append((time.process_time() - began_cpu) * 1000)
        print(f"threads={args.threads}: search CPU p50 {np.median(cpu):.2f} ms (mean {np.mean(cpu):.2f}), wall p50 "
              f"{np.median(wall):.2f} ms; the embedding alone CPU p50 {np.median(embed):.2f} ms "
              f"(load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores)")
    runtime.close()


if __name__ == "__main__":
    main()
