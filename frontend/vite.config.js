// The table's page is built into the Python package, which serves it at / and its
// files under /static/ (src/croupier/server/web.py). No CDN: everything is bundled.
import { defineConfig } from "vite";

export default defineConfig({
  base: "/static/",
  build: {
    outDir: "../src/croupier/server/static",
    emptyOutDir: true,
    assetsDir: "assets",
    // Readable stack traces from a player's bug report.
    sourcemap: true,
  },
  test: {
    include: ["test/**/*.test.js"],
  },
});
