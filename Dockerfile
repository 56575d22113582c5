# The project as a wheel: its Python packages with their templates and static files (package
# data, pyproject.toml) and the compiled solvers (setup.py: games/engine/_solver_c.c and
# _variant_c.c, hence a C compiler in this stage only). Built in a stage of its own, so the
# image holds the installed wheel only, not the source tree or the compiler.
FROM python:3.11-slim AS wheel
ENV PIP_DISABLE_PIP_VERSION_CHECK=1 SCORPION_REQUIRE_COMPILED_SOLVER=1
RUN apt-get update \
    && apt-get install -y --no-install-recommends gcc libc6-dev \
    && rm -rf /var/lib/apt/lists/*
WORKDIR /src
COPY . .
RUN pip wheel --no-cache-dir --no-deps --wheel-dir /wheels .

FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1 \
    STATIC_ROOT=/app/staticfiles
WORKDIR /app

# The dependencies first, in a layer of their own: read from pyproject.toml alone, so that an
# edit of the code reuses this layer (and its download) instead of installing them again.
COPY pyproject.toml ./
RUN python -c "import tomllib; print('\n'.join(tomllib.load(open('pyproject.toml', 'rb'))['project']['dependencies']))" \
        > requirements.txt \
    && pip install --no-cache-dir -r requirements.txt \
    && rm requirements.txt pyproject.toml
# Then the project, from its wheel (nothing else of the source is copied: the app runs from
# site-packages, templates and static files included), and manage.py to run its commands.
COPY --from=wheel /wheels/ /tmp/wheels/
COPY manage.py ./
RUN pip install --no-cache-dir --no-deps /tmp/wheels/*.whl \
    && rm -rf /tmp/wheels \
    && useradd --create-home scorpion \
    && install -d -o scorpion -g scorpion /var/lib/scorpion/archive
# Static files are collected at build time (with the production manifest storage, hence
# DEBUG off, and throwaway values for the settings DEBUG off requires): served by nginx (the
# proxy stage below copies them), or by whitenoise when the app runs without the proxy.
# tests/ops/test_image.py runs this line against the installed wheel.
RUN DEBUG=false SECRET_KEY=build-only-key-not-used-at-runtime-0123456789abcdefghij \
    DAILY_DEAL_SECRET=build-only-daily-key-not-used-at-runtime-0123 EMAIL_URL=consolemail:// \
    ALLOWED_HOSTS=build.invalid \
    python manage.py collectstatic --noinput
USER scorpion
EXPOSE 8000
CMD ["gunicorn", "scorpion_site.wsgi:application", "--bind", "0.0.0.0:8000", "--workers", "4"]

# nginx in front of the app (docker-compose.yml's proxy service): the static files collected
# above, and the templates of deploy/nginx/, which the image's entrypoint renders at start
# (NGINX_ENVSUBST_OUTPUT_DIR=/etc/nginx, variables from the compose file).
FROM nginx:1.28 AS proxy
COPY deploy/nginx/ /etc/nginx/templates/
COPY --from=app /app/staticfiles /srv/static

# The default target stays the application image.
FROM app
