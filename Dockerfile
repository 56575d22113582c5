FROM python:3.11-slim AS app

ENV PYTHONDONTWRITEBYTECODE=1 PYTHONUNBUFFERED=1 PIP_DISABLE_PIP_VERSION_CHECK=1
WORKDIR /app

COPY pyproject.toml README.md ./
COPY scorpion_site ./scorpion_site
COPY games ./games
COPY accounts ./accounts
COPY stats ./stats
COPY web ./web
COPY templates ./templates
COPY manage.py ./
RUN pip install --no-cache-dir . \
    && useradd --create-home scorpion
# Static files are collected at build time (with the production manifest storage, hence
# DEBUG off and a throwaway key): served by nginx (the proxy stage below copies them), or by
# whitenoise when the app runs without the proxy.
RUN DEBUG=false SECRET_KEY=build-only-key-not-used-at-runtime-0123456789abcdefghij \
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
