# syntax=docker/dockerfile:1
# teotihuacan-server: one image for `teoti gateway`, `teoti engine` and `teoti bot`
# (deploy/k8s/ picks the command). Non-root, runs with a read-only root filesystem.
#
#   docker build -t teotihuacan-server:dev .
#   docker run --rm -e REDIS_URL=redis://HOST:6379/0 -p 50052:50052 \
#     teotihuacan-server:dev engine --host=0.0.0.0

ARG PYTHON_IMAGE=python:3.11-slim-bookworm
# The full image of the same Python and Debian release: it has gcc for the mypyc build.
ARG BUILD_IMAGE=python:3.11-bookworm

# --- build: wheels of the project and of every dependency --------------------------------
# The rules are compiled with mypyc (setup.py, docs/performance.md): about 1.5x the rules
# speed of plain Python, and CI runs every unit test against that same build.
FROM ${BUILD_IMAGE} AS build
WORKDIR /src
COPY pyproject.toml setup.py README.md LICENSE constraints.txt ./
COPY services ./services
COPY proto ./proto
COPY clients/python ./clients/python
# mypyc type-checks the rules against what they import, so the dependencies go in first
# (a plain install); then the wheels: the project's compiled, and every dependency's.
# Both builds generate the gRPC stubs (setup.py, grpcio-tools, same pin as pyproject.toml)
# into the wheel, with the teoti_client package they live in. Every dependency at the
# version constraints.txt pins (scripts/lock_dependencies.sh), as .ci/run installs them.
RUN python -m pip install --no-cache-dir -c constraints.txt setuptools==84.2.1 wheel==0.48.0 \
       mypy==2.4.1 grpcio-tools==1.85.1 . \
    && rm -rf build \
    && TEOTI_COMPILE_RULES=1 python -m pip wheel --no-cache-dir --no-build-isolation \
       -c constraints.txt --wheel-dir /wheels .

# --- runtime -----------------------------------------------------------------------------
FROM ${PYTHON_IMAGE} AS runtime
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    VIRTUAL_ENV=/opt/teoti \
    PATH=/opt/teoti/bin:$PATH \
    HOME=/tmp \
    XDG_CACHE_HOME=/tmp/cache

RUN groupadd --system --gid 10001 teoti \
    && useradd --system --uid 10001 --gid teoti --no-create-home \
       --home-dir /nonexistent --shell /usr/sbin/nologin teoti

COPY --from=build /wheels /wheels
RUN python -m venv /opt/teoti \
    && /opt/teoti/bin/pip install --no-cache-dir --no-index --find-links /wheels \
       /wheels/teotihuacan_server-*.whl \
    && rm -rf /wheels

# The wheel carries the generated gRPC stubs (built in the build stage), so nothing is
# generated or written at run time (the root filesystem may be read-only). Importing them
# here proves they are there; byte-compiling now spares every start the work.
RUN python -c "import teoti_client.proto.game_service_pb2_grpc, services.rpc.generated.engine_service_pb2, services.rpc.generated.tournament_service_pb2_grpc" \
    && python -m compileall -q /opt/teoti/lib/python3.11/site-packages/services \
       /opt/teoti/lib/python3.11/site-packages/teoti_client

USER 10001:10001
WORKDIR /tmp
EXPOSE 50051 50052 8080
ENTRYPOINT ["teoti"]
CMD ["--help"]
