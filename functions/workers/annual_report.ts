// Worker: generates an annual report (Mastodon's GenerateAnnualReportWorker), queued by
// POST /api/v1/annual_reports/:year/generate (lib/annual_reports/).
import { generateReport } from '../../lib/annual_reports';
import { worker } from '../../lib/queue/worker';

export const handler = worker('annualReport', (m) => generateReport(m.accountId, m.year, m.refreshId));
