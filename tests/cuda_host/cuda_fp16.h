// Empty: tests/cuda_host/cuda_host.h, included first, defines what the emission uses.
