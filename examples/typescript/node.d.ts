// The little of Node's `process` the examples use. Declared here so that the examples need no
// package but `typescript` (fetch, crypto.subtle, atob and TextEncoder come from the DOM library,
// which Node 20 provides as globals).
declare const process: {
  readonly argv: string[];
  readonly env: Record<string, string | undefined>;
  exitCode?: number;
};
