import path from "node:path";
import { fileURLToPath } from "node:url";
import nunjucks from "nunjucks";

export const TEMPLATES_DIR = path.join(path.dirname(fileURLToPath(import.meta.url)), "..", "templates");

/** Renders the gateway's templates; autoescaping is on, so every value is HTML-escaped unless marked safe. */
export interface Views {
  render(template: string, context: Record<string, unknown>): string;
}

/**
 * The Nunjucks environment: templates from `templates/`, autoescape on,
 * templates cached unless `watch` (development) is set. An undefined value
 * prints nothing (templates test optional values with `if`), so the tests
 * read the pages for what they must show.
 */
export function createViews(options: { watch?: boolean } = {}): Views {
  const env = new nunjucks.Environment(new nunjucks.FileSystemLoader(TEMPLATES_DIR, { noCache: options.watch ?? false }), {
    autoescape: true,
    throwOnUndefined: false,
    trimBlocks: true,
    lstripBlocks: true,
  });
  return { render: (template, context) => env.render(template, context) };
}
