print("cowatch-bench: benchmarks are not built yet")
