/** Values the global setup provides to every test file (see global-setup.ts). */
declare module "vitest" {
  export interface ProvidedContext {
    /** Admin URL of the PostgreSQL server tests create their databases on. */
    pgServerUrl: string;
    /** Directory for logs written by processes tests start. */
    testLogDir: string;
  }
}

export {};
