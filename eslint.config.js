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
          // The bench's baseline B1 runs the services' own create SQL (tools/bench/src/create-sql.ts), with the created event payins builds.
          // Tests and `npm start` run on the local chains of tools/local-chains; tests put tools/rpc-proxy's faults in front of them.
          // docs/callers.md is generated from the services' allowlists (tools/stack/src/callers-doc.ts).
          allow: [
            "@payin/payins/store/pay-in-repository", "@payin/payins/events/outbox-events", "@payin/allocation/store/wallet-repository", "@payin/local-chains", "@payin/rpc-proxy",
            "@payin/identity/rpc/callers", "@payin/merchants/rpc/callers", "@payin/payins/rpc/callers", "@payin/allocation/rpc/callers",
            "@payin/notifications/rpc/callers",
          ],
          // tools/bench/src/unary-client-micro.ts loads @payin/rpc (or a build of it) on purpose.
          checkDynamicDependenciesExceptions: ["@payin/rpc"],
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
  {
    // Services take only the pure parts of the HTTP edge library, never Koa.
    files: ["services/**/*.ts"],
    rules: {
      "no-restricted-imports": [
        "error",
        { paths: [{ name: "@payin/http", message: "import the pure subpaths @payin/http/text or @payin/http/errors; the root pulls Koa" }] },
      ],
    },
  },
];
