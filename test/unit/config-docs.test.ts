import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { CONFIG_PAGE, CONFIG_SCHEMAS, TABLES_END, TABLES_START, renderConfigTables, withConfigTables } from '../../src/config-docs';

const PAGE = join(__dirname, '..', '..', CONFIG_PAGE);

describe("the configuration page's tables", () => {
  it('when compared with the tables rendered from the config schemas, then they are the same (else: npm run docs:config)', () => {
    const page = readFileSync(PAGE, 'utf8');
    const current = page.slice(page.indexOf(TABLES_START) + TABLES_START.length, page.indexOf(TABLES_END)).trim();
    expect(current).toBe(renderConfigTables(CONFIG_SCHEMAS));
  });

  it('when a variable has no description, then rendering names it instead of leaving a blank row', async () => {
    const { z } = await import('zod');
    const schema = z.object({ DOCUMENTED: z.string().optional().describe('Has one.'), FORGOTTEN: z.string().optional() });
    expect(() => renderConfigTables([{ title: 'x', schema }])).toThrow('no .describe'); // names FORGOTTEN
    expect(() => renderConfigTables([{ title: 'x', schema }])).toThrow(/FORGOTTEN/);
  });

  it('when rendering, then defaults come from the schema: required, unset, values, and a stated default text', async () => {
    const { z } = await import('zod');
    const schema = z.object({
      A: z.string().describe('Required one.'),
      B: z.string().optional().describe('Optional | with a pipe.'),
      C: z
        .string()
        .optional()
        .transform((s) => Number(s ?? 7))
        .describe('Number.'),
      D: z.string().optional().meta({ defaultText: '`$A/x`' }).describe('Derived.'),
    });
    expect(
      renderConfigTables([{ title: 'T', schema }])
        .split('\n')
        .slice(4),
    ).toEqual([
      '| `A` | **required** | Required one. |',
      '| `B` | unset | Optional \\| with a pipe. |',
      '| `C` | `7` | Number. |',
      '| `D` | `$A/x` | Derived. |',
    ]);
  });

  it('when the markers are missing, then regenerating refuses instead of appending', () => {
    expect(() => withConfigTables('# no markers', 'table')).toThrow('lacks the markers');
    expect(withConfigTables(`a\n${TABLES_START}\nold\n${TABLES_END}\nb`, 'new')).toBe(`a\n${TABLES_START}\nnew\n${TABLES_END}\nb`);
  });
});
