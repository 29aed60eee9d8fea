// Starts Swagger UI on /docs. A file, not an inline script, so the page keeps script-src 'self'; the
// OpenAPI document's URL comes from the page (data-openapi-url). The options are FastAPI's defaults.
"use strict";
(() => {
  const root = document.getElementById("swagger-ui");
  if (!root || !window.SwaggerUIBundle) return;
  window.SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    domNode: root,
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    // The default sends the document to validator.swagger.io and shows its badge: nothing leaves the site.
    validatorUrl: null,
    presets: [window.SwaggerUIBundle.presets.apis],
  });
})();
