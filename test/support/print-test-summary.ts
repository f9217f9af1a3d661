// Prints vitest's JSON report as one plain closing line, `N passed, N failed, N skipped`, which any
// CI log reader understands. Exits non-zero when anything failed, so it can stand last in a recipe.
import { readFileSync } from 'node:fs';

interface VitestJsonReport {
  numPassedTests: number;
  numFailedTests: number;
  numPendingTests: number;
  numTodoTests: number;
  success: boolean;
}

const report = JSON.parse(readFileSync(process.argv[2] ?? '.vitest-report.json', 'utf8')) as VitestJsonReport;
console.log(`vitest: ${report.numPassedTests} passed, ${report.numFailedTests} failed, ${report.numPendingTests + report.numTodoTests} skipped`);
process.exit(report.success ? 0 : 1);
