"""Training, evaluation (arena), benchmarks and the command line of cardzoo."""
