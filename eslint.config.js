import nx from "@nx/eslint-plugin";
import tseslint from "typescript-eslint";

export default [
  { ignores: ["**/node_modules/**", "**/gen/**", "tmp/**", ".data/**", "dist/**"] },
  ...tseslint.configs.recommended,
  {
    files: ["**/*.ts"],
    plugins: { "@nx": nx },
    rules: {
      "@typescript-eslint/no-explicit-any": "off",
      "@typescript-eslint/no-unused-vars": ["error", { argsIgnorePattern: "^_", varsIgnorePattern: "^_" }],
      "no-console": "error",
      // Services never import each other; gateways reach services only over RPC.
      "@nx/enforce-module-boundaries": [
        "error",
        {
          allow: [],
          depConstraints: [
            { sourceTag: "type:lib", onlyDependOnLibsWithTags: ["type:lib"] },
            { sourceTag: "type:service", onlyDependOnLibsWithTags: ["type:lib"] },
            { sourceTag: "type:gateway", onlyDependOnLibsWithTags: ["type:lib"] },
            { sourceTag: "type:tool", onlyDependOnLibsWithTags: ["type:lib", "type:tool"] },
          ],
        },
      ],
    },
  },
];
