// Karma configuration for `ng test` (builder @angular/build:karma, which adds the build output and
// its own plugins on top of this file). Headless by default so CI and developers run the same thing.
const fs = require('node:fs');
const path = require('node:path');

// Debian's package installs Chromium here; karma-chrome-launcher only looks for Google Chrome.
process.env.CHROME_BIN ||= '/usr/bin/chromium';

/**
 * Writes {"passed","failed","skipped"} to $KARMA_SUMMARY_FILE when the run ends, so CI can read
 * the counts without parsing the progress output.
 */
function SummaryFileReporter() {
  const file = process.env.KARMA_SUMMARY_FILE;
  // A stale file from an earlier run must not pass for this run's result if this one never finishes.
  if (file) fs.rmSync(file, { force: true });

  this.onRunComplete = (_browsers, results) => {
    if (!file) return;
    // An error outside any spec (a throwing import, afterAll, a crashed browser) fails the run with
    // no failed spec; count it so the summary never looks green when karma's exit code is not.
    const failed = results.failed === 0 && results.exitCode !== 0 ? 1 : results.failed;
    const summary = { passed: results.success, failed, skipped: results.skipped };
    fs.mkdirSync(path.dirname(path.resolve(file)), { recursive: true });
    fs.writeFileSync(file, JSON.stringify(summary) + '\n');
  };
}

module.exports = function (config) {
  config.set({
    basePath: '',
    frameworks: ['jasmine'],
    plugins: [
      require('karma-jasmine'),
      require('karma-chrome-launcher'),
      { 'reporter:summary-file': ['type', SummaryFileReporter] },
    ],
    client: {
      jasmine: {
        random: true,
      },
    },
    reporters: ['progress', 'summary-file'],
    customLaunchers: {
      // Root in a container: Chromium refuses to start without --no-sandbox.
      ChromeHeadlessCI: {
        base: 'ChromeHeadless',
        flags: [
          '--no-sandbox',
          '--disable-gpu',
          '--disable-dev-shm-usage',
          '--disable-background-networking',
          '--disable-component-update',
          '--disable-sync',
          '--no-first-run',
        ],
      },
    },
    browsers: ['ChromeHeadlessCI'],
    singleRun: true,
    restartOnFileChange: true,
  });
};
