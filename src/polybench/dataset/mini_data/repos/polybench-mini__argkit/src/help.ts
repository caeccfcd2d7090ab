import type { OptionSpec, PositionalSpec } from './types';

/** What the help formatter needs to know about a parser. */
export interface HelpSource {
  readonly program: string;
  readonly description: string;
  readonly options: readonly OptionSpec[];
  readonly positionals: readonly PositionalSpec[];
}

const INDENT = '  ';
const GAP = 2;

function positionalUsage(spec: PositionalSpec): string {
  const name = spec.variadic ? `${spec.name}...` : spec.name;
  return spec.required === false ? `[${name}]` : `<${name}>`;
}

function optionLabel(spec: OptionSpec): string {
  const names = spec.short ? `-${spec.short}, --${spec.name}` : `    --${spec.name}`;
  if (spec.type === 'boolean') {
    return names;
  }
  const placeholder = spec.valueName ?? spec.name.toUpperCase().replace(/-/g, '_');
  return `${names} <${placeholder}>`;
}

function optionDetails(spec: OptionSpec): string {
  const notes: string[] = [];
  if (spec.choices) {
    notes.push(`one of: ${spec.choices.join(', ')}`);
  }
  if (spec.default !== undefined) {
    notes.push(`default: ${Array.isArray(spec.default) ? spec.default.join(',') : String(spec.default)}`);
  }
  if (spec.required) {
    notes.push('required');
  }
  if (spec.multiple) {
    notes.push('repeatable');
  }
  const description = spec.description ?? '';
  if (notes.length === 0) {
    return description;
  }
  return `${description}${description ? ' ' : ''}(${notes.join('; ')})`;
}

function table(rows: ReadonlyArray<readonly [string, string]>): string[] {
  const width = Math.max(...rows.map(([left]) => left.length));
  return rows.map(([left, right]) =>
    right ? `${INDENT}${left.padEnd(width + GAP)}${right}` : `${INDENT}${left}`,
  );
}

/**
 * Builds the `--help` text: a usage line, the description, then one table for the
 * positionals and one for the options.
 */
export function formatHelp(source: HelpSource): string {
  const usage = [`Usage: ${source.program}`];
  if (source.options.length > 0) {
    usage.push('[options]');
  }
  usage.push(...source.positionals.map(positionalUsage));

  const lines = [usage.join(' ')];
  if (source.description) {
    lines.push('', source.description);
  }
  if (source.positionals.length > 0) {
    lines.push('', 'Arguments:');
    lines.push(...table(source.positionals.map((spec) => [spec.name, spec.description ?? ''] as const)));
  }
  if (source.options.length > 0) {
    lines.push('', 'Options:');
    lines.push(...table(source.options.map((spec) => [optionLabel(spec), optionDetails(spec)] as const)));
  }
  return lines.join('\n') + '\n';
}
