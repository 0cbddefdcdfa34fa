#!/usr/bin/env python3
"""A gRPC server with the standard health service (grpcio-health-checking).

  grpc-health-server.py ADDRESS PORT [CERTIFICATE KEY]

Plaintext, or over TLS with the PEM certificate chain and key given.

Its statuses: the server as a whole (""), "up" and "service1" (the service Debian's
blackbox.yml names) are SERVING, "down" is NOT_SERVING; any
other service is unknown to it (Check answers NOT_FOUND). Prints "listening" once it serves.
Run by Debian's python3 with PYTHONPATH naming the grpcio tree that
scripts/install-deps.sh test installs; it serves until killed.
"""
import sys
from concurrent import futures

import grpc
from grpc_health.v1 import health, health_pb2, health_pb2_grpc


def main():
    address, port = sys.argv[1], sys.argv[2]
    server = grpc.server(futures.ThreadPoolExecutor(max_workers=2))
    servicer = health.HealthServicer()
    servicer.set("", health_pb2.HealthCheckResponse.SERVING)
    servicer.set("up", health_pb2.HealthCheckResponse.SERVING)
    servicer.set("service1", health_pb2.HealthCheckResponse.SERVING)
    servicer.set("down", health_pb2.HealthCheckResponse.NOT_SERVING)
    health_pb2_grpc.add_HealthServicer_to_server(servicer, server)
    host = f"[{address}]" if ":" in address else address
    if len(sys.argv) > 4:
        with open(sys.argv[3], "rb") as chain, open(sys.argv[4], "rb") as key:
            credentials = grpc.ssl_server_credentials([(key.read(), chain.read())])
        server.add_secure_port(f"{host}:{port}", credentials)
    else:
        server.add_insecure_port(f"{host}:{port}")
    server.start()
    print("listening", flush=True)
    server.wait_for_termination()


if __name__ == "__main__":
    main()
