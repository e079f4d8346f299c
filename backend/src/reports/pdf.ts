/**
 * The report as a PDF a person would hand over (pdfkit, A4): the customer's name and the period,
 * the totals, a table per system and a timeline bar per system (down red, maintenance blue,
 * inactive and unknown grey), on as many pages as the systems need.
 *
 * pdfkit's built-in Helvetica writes WinAnsi (Latin-1 and a few more) only: other characters of a
 * name are shown as "?" rather than as garbage (embedding a Unicode font is for later).
 */
import PDFDocument from 'pdfkit';
import type { AvailabilityReport, PeriodKind } from '../../../contracts/reports.js';
import { countedAsDown, formatAvailability, formatDuration, formatLocal, periodLabel } from './render-text.js';

const MARGIN = 50;
const WIDTH = 595.28 - 2 * MARGIN;
const BOTTOM = 841.89 - MARGIN;
const COLOURS: Record<PeriodKind | 'up', string> = {
  up: '#2e7d32',
  down: '#c62828',
  maintenance: '#1565c0',
  inactive: '#9e9e9e',
  unknown: '#d6d6d6',
};
const LEGEND: Array<[PeriodKind | 'up', string]> = [
  ['up', 'Up'],
  ['down', 'Down'],
  ['maintenance', 'Maintenance'],
  ['inactive', 'Customer inactive'],
  ['unknown', 'No data (alert retention)'],
];

/** Characters Helvetica (WinAnsi) can draw; anything else becomes "?". */
const printable = (text: string) => text.replace(/[^\x20-\x7e\xa0-\xff€–—‘’“”•…]/g, '?');

/** The title, the period and the totals, with what counts as down. */
function drawTotals(doc: PDFKit.PDFDocument, report: AvailabilityReport): void {
  const zone = report.customer.timeZone;

  doc.font('Helvetica-Bold').fontSize(20).text('Availability report');
  doc.moveDown(0.3).fontSize(14).text(printable(report.customer.name));
  doc.font('Helvetica').fontSize(10).fillColor('#333333');
  doc.text(`Period: ${periodLabel(report)}`);
  doc.text(`Generated: ${formatLocal(report.generatedAt, zone)} (${zone})`);
  if (report.dataFrom)
    doc.text(
      `No data before ${formatLocal(report.dataFrom, zone)}: resolved alerts older than the alert retention are deleted.`,
    );
  doc.moveDown(0.6).fillColor('#000000').font('Helvetica-Bold').fontSize(12);
  doc.text(`Availability: ${formatAvailability(report.total.availability)}`);
  doc.font('Helvetica').fontSize(10);
  doc.text(
    `Down ${formatDuration(report.total.downMs)} of ${formatDuration(report.total.monitoredMs)} monitored ` +
      `(system time, ${report.systems.length} systems); maintenance ${formatDuration(report.total.maintenanceMs)}` +
      (report.total.inactiveMs ? `; customer inactive ${formatDuration(report.total.inactiveMs)}` : '') +
      '.',
  );
  doc.moveDown(0.4).fontSize(8).fillColor('#555555');
  doc.text(
    `${countedAsDown(report.downtimeRules)} Maintenance windows and periods while the customer ` +
      'was inactive are shown separately and not counted.',
  );
  doc.fillColor('#000000');
}

/** One row per system, then one per cluster, a page added when the next row would not fit. */
function drawTable(doc: PDFKit.PDFDocument, report: AvailabilityReport): void {
  const columns = [
    { title: 'System', x: 0, width: 170 },
    { title: 'Cluster', x: 175, width: 105 },
    { title: 'Availability', x: 285, width: 70 },
    { title: 'Down', x: 360, width: 70 },
    { title: 'Maintenance', x: 435, width: 60 },
  ];
  const clusterNames = new Map(report.clusters.map((c) => [c.id, c.name]));
  const row = (cells: string[], bold = false) => {
    if (doc.y > BOTTOM - 20) doc.addPage();
    const y = doc.y;
    doc.font(bold ? 'Helvetica-Bold' : 'Helvetica').fontSize(9);
    columns.forEach((column, i) =>
      doc.text(printable(cells[i] ?? ''), MARGIN + column.x, y, {
        width: column.width,
        lineBreak: false,
        ellipsis: true,
      }),
    );
    doc.x = MARGIN;
    doc.y = y + 14;
  };
  doc.moveDown(1);
  doc.x = MARGIN;
  row(
    columns.map((c) => c.title),
    true,
  );
  for (const system of report.systems) {
    row([
      system.name,
      system.clusterId === null ? '' : (clusterNames.get(system.clusterId) ?? ''),
      formatAvailability(system.availability),
      formatDuration(system.downMs),
      formatDuration(system.maintenanceMs),
    ]);
  }
  for (const cluster of report.clusters) {
    row(
      [`Cluster ${cluster.name}`, '', formatAvailability(cluster.availability), formatDuration(cluster.downMs), ''],
      true,
    );
  }
}

/** One bar per system over the whole range, below the table when the heading and a few bars fit. */
function drawTimeline(doc: PDFKit.PDFDocument, report: AvailabilityReport): void {
  const zone = report.customer.timeZone;
  if (doc.y > BOTTOM - 120) doc.addPage();
  else doc.moveDown(2);
  doc.x = MARGIN;
  doc.font('Helvetica-Bold').fontSize(14).text('Timeline');
  doc
    .font('Helvetica')
    .fontSize(9)
    .text(`${formatLocal(report.from, zone)} to ${formatLocal(report.to, zone)}`);
  let legendX = MARGIN;
  const legendY = doc.y + 6;
  for (const [kind, label] of LEGEND) {
    doc.rect(legendX, legendY, 10, 10).fill(COLOURS[kind]);
    doc.fillColor('#000000').text(label, legendX + 14, legendY + 1, { lineBreak: false });
    legendX += 14 + doc.widthOfString(label) + 16;
  }
  doc.x = MARGIN;
  doc.y = legendY + 24;
  const from = Date.parse(report.from);
  const span = Math.max(1, Date.parse(report.to) - from);
  const barX = MARGIN + 150;
  const barWidth = WIDTH - 150;
  for (const system of report.systems) {
    if (doc.y > BOTTOM - 24) {
      doc.addPage();
      doc.y = MARGIN;
    }
    const y = doc.y;
    doc
      .fillColor('#000000')
      .fontSize(9)
      .text(printable(system.name), MARGIN, y + 2, { width: 145, lineBreak: false, ellipsis: true });
    const startX = barX + (barWidth * Math.max(0, system.periodMs ? span - system.periodMs : span)) / span;
    if (system.periodMs > 0) doc.rect(startX, y, barX + barWidth - startX, 12).fill(COLOURS.up);
    for (const period of system.periods) {
      const x = barX + (barWidth * (Date.parse(period.from) - from)) / span;
      const w = Math.max(0.75, (barWidth * (Date.parse(period.to) - Date.parse(period.from))) / span);
      doc.rect(x, y, w, 12).fill(COLOURS[period.kind]);
    }
    doc.rect(barX, y, barWidth, 12).lineWidth(0.5).stroke('#555555');
    doc.x = MARGIN;
    doc.y = y + 20;
  }
}

export function reportPdf(report: AvailabilityReport): Promise<Buffer> {
  const doc = new PDFDocument({
    size: 'A4',
    margin: MARGIN,
    info: {
      Title: printable(`Availability report: ${report.customer.name}, ${periodLabel(report)}`),
      Author: 'Argus',
      CreationDate: new Date(report.generatedAt),
    },
  });
  const chunks: Buffer[] = [];
  doc.on('data', (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Buffer>((resolve, reject) => {
    doc.on('end', () => resolve(Buffer.concat(chunks)));
    doc.on('error', reject);
  });
  drawTotals(doc, report);
  drawTable(doc, report);
  drawTimeline(doc, report);
  doc.fillColor('#000000');
  doc.end();
  return done;
}
