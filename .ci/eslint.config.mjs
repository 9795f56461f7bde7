// ESLint's settings for the page's JavaScript (server/web/), run by .ci/run.
import js from "@eslint/js";
import globals from "globals";

export default [
  js.configs.recommended,
  {
    files: ["server/web/**/*.js", "tests/support/*.js"],
    languageOptions: { ecmaVersion: 2022, sourceType: "module", globals: globals.browser },
    rules: {
      "no-unused-vars": ["error", { args: "none" }],
      "no-shadow": "error",
      "no-use-before-define": ["error", { functions: false, classes: false }],
      eqeqeq: ["error", "smart"],
    },
  },
  {
    files: ["tests/support/*.js"],
    languageOptions: { sourceType: "script" },
  },
];
