# The bot's image: one image, every role (README, "Run it"):
#   docker run ... advisor            all-in-one: HTTP on $PORT (or Socket Mode with SLACK_APP_TOKEN)
#   docker run ... advisor web        HTTP acks only (gunicorn on $PORT)
#   docker run ... advisor worker     answers from the outbox, follows pilots
#   docker run ... advisor socket     Socket Mode acks only
# State lives in /data (a volume) unless ADVISOR_STATE_URL points at PostgreSQL (needed when
# more than one container answers). Heavy extras (torch, ray, matplotlib) are left out: pilots
# run on GPU nodes (ADVISOR_PILOT_LAUNCHER=ray) and the bot says what to install for the rest;
# build with --build-arg EXTRAS=postgres,chart to add the chart.
FROM python:3.11-slim

ARG EXTRAS=postgres
ENV PYTHONDONTWRITEBYTECODE=1 \
    PYTHONUNBUFFERED=1 \
    PIP_NO_CACHE_DIR=1 \
    PIP_DISABLE_PIP_VERSION_CHECK=1

WORKDIR /app
COPY pyproject.toml README.md catalog.db ./
COPY advisor ./advisor
COPY bot ./bot
RUN pip install ".[${EXTRAS}]" \
    && useradd --create-home --uid 10001 advisor \
    && mkdir -p /data \
    && chown advisor /data

USER advisor
ENV PORT=3000 \
    ADVISOR_CATALOG=/app/catalog.db \
    ADVISOR_STATE_DB=/data/state.db \
    ADVISOR_PILOT_DIR=/data/pilot-runs
VOLUME ["/data"]
EXPOSE 3000
ENTRYPOINT ["python", "-m", "bot"]
CMD ["all"]
