// `make matrix`: runs the 6 x 6 protocol matrix and prints it as a table of pass/fail cells.
import { formatMatrix, runMatrix } from './run-matrix.ts';

const { cells, schemaViolations } = await runMatrix();
console.log(formatMatrix(cells));
for (const c of cells.filter((cell) => !cell.ok)) console.log(`FAIL ${c.ingress} -> ${c.egress}${c.stream ? ' (stream)' : ''}: ${c.detail}`);
for (const v of schemaViolations) console.log(`upstream request broke its schema: ${v}`);
process.exit(cells.every((c) => c.ok) && schemaViolations.length === 0 ? 0 : 1);
