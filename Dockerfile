# syntax=docker/dockerfile:1
# krypto-server: a multi-stage build. The builder compiles the release binary;
# the runtime image holds only that binary, curl for the health check, and a
# non-root user whose home is the data volume.

FROM rust:1.95-bookworm AS builder
WORKDIR /src
COPY . .
# The migrations are embedded into the binary at compile time. The cache
# mounts keep the registry and the build directory between builds.
RUN --mount=type=cache,target=/usr/local/cargo/registry \
    --mount=type=cache,target=/src/target \
    cargo build --release --locked -p krypto-server \
    && cp target/release/krypto-server /usr/local/bin/krypto-server

FROM debian:bookworm-slim AS runtime
RUN apt-get update \
    && apt-get install -y --no-install-recommends curl ca-certificates \
    && rm -rf /var/lib/apt/lists/* \
    && useradd --system --uid 10001 --home-dir /data --create-home krypto
COPY --from=builder /usr/local/bin/krypto-server /usr/local/bin/krypto-server
USER krypto
WORKDIR /data
ENV KRYPTO_LISTEN=0.0.0.0:7878 \
    KRYPTO_DATABASE_URL=sqlite:///data/krypto.db \
    KRYPTO_LOG_FORMAT=json
EXPOSE 7878
VOLUME ["/data"]
# Ready: the database answers and takes the writes (/readyz, docs/api.md);
# /healthz only says the process serves.
HEALTHCHECK --interval=10s --timeout=3s --start-period=5s --retries=3 \
    CMD curl -fsS http://127.0.0.1:7878/readyz || exit 1
# SIGTERM (docker stop) shuts the server down gracefully.
STOPSIGNAL SIGTERM
ENTRYPOINT ["/usr/local/bin/krypto-server"]
