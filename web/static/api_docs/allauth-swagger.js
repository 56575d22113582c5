// Swagger UI for allauth's headless API (templates/api_docs/allauth_swagger.html): a file, not
// an inline script, so that the Content-Security-Policy needs no 'unsafe-inline'.
"use strict";

const root = document.getElementById("swagger-ui");

function csrfToken() {
  const match = document.cookie.match(/(?:^|;\s*)csrftoken=([^;]+)/);
  return match ? decodeURIComponent(match[1]) : "";
}

SwaggerUIBundle({
  url: root.dataset.schemaUrl,
  domNode: root,
  presets: [SwaggerUIBundle.presets.apis],
  layout: "BaseLayout",
  // allauth's browser client checks CSRF on its writes, as Django does.
  requestInterceptor: (request) => {
    if (!["GET", "HEAD", undefined].includes(request.method)) {
      request.headers["X-CSRFToken"] = csrfToken();
    }
    return request;
  },
});
