/**
 * The project's ESLint rule `argus/own-lines-per-function`: a function's own lines, the lines of its
 * span not inside a function nested in it, blank and comment-only lines left out, may not pass `max`.
 *
 * ESLint's `max-lines-per-function` counts a factory that returns an object of methods with every
 * method inside it, so a repo of twenty small functions reads as one long function. Here each nested
 * function is measured on its own and its lines (header to closing brace) are not its parent's; what
 * the factory itself does before `return { … }` still counts. Why: docs/architecture.md, "Size".
 */

/** @typedef {{ type: string, range: [number, number], loc: { start: { line: number }, end: { line: number } } }} Node */

const FUNCTION_TYPES = new Set(['FunctionDeclaration', 'FunctionExpression', 'ArrowFunctionExpression']);

/** @param {Node} node */
function describe(node) {
  const parent = /** @type {any} */ (node).parent;
  const id = /** @type {any} */ (node).id;
  if (id?.name) return `Function '${id.name}'`;
  if (parent?.type === 'VariableDeclarator' && parent.id?.name) return `Function '${parent.id.name}'`;
  if ((parent?.type === 'Property' || parent?.type === 'MethodDefinition') && parent.key?.name) {
    return `Method '${parent.key.name}'`;
  }
  return 'Function';
}

export const ownLinesPerFunction = {
  meta: {
    type: 'suggestion',
    docs: { description: "limit a function's own lines, the bodies of the functions nested in it left out" },
    schema: [{ type: 'object', properties: { max: { type: 'integer', minimum: 1 } }, additionalProperties: false }],
    messages: {
      tooLong:
        '{{name}} has {{count}} lines of its own (nested functions left out); at most {{max}}: split it into named steps.',
    },
  },
  /** @param {any} context */
  create(context) {
    const max = context.options[0]?.max ?? 80;
    const sourceCode = context.sourceCode;
    /** @type {{ node: Node, nested: Node[] }[]} */
    const open = [];

    /** @param {Node} node */
    function enter(node) {
      open.at(-1)?.nested.push(node);
      open.push({ node, nested: [] });
    }

    /** Counts the lines holding a token of the function and of no function nested in it. */
    function leave() {
      const frame = open.pop();
      if (!frame) return;
      const { node, nested } = frame;
      const lines = new Set();
      for (const token of sourceCode.getTokens(node)) {
        for (let line = token.loc.start.line; line <= token.loc.end.line; line++) lines.add(line);
      }
      for (const inner of nested) {
        for (let line = inner.loc.start.line; line <= inner.loc.end.line; line++) lines.delete(line);
      }
      if (lines.size > max) {
        context.report({
          node,
          messageId: 'tooLong',
          data: { name: describe(node), count: String(lines.size), max: String(max) },
        });
      }
    }

    const handlers = {};
    for (const type of FUNCTION_TYPES) {
      handlers[type] = enter;
      handlers[`${type}:exit`] = leave;
    }
    return handlers;
  },
};

/** The plugin `argus` as eslint.config.js loads it. */
export default { meta: { name: 'argus' }, rules: { 'own-lines-per-function': ownLinesPerFunction } };
