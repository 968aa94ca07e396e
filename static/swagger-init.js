// Starts the vendored Swagger UI on /docs (an external file, so no inline script is needed).
window.addEventListener("load", function () {
  "use strict";
  var el = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: el.dataset.openapi, dom_id: "#swagger-ui", deepLinking: true,
    layout: "BaseLayout", showExtensions: true, showCommonExtensions: true,
    presets: [SwaggerUIBundle.presets.apis]
  });
});
