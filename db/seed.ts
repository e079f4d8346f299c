/**
 * Start-up step 4: without `--demo`, only ensures the default rules exist (no
 * users, no sample systems). With `--demo`, also adds the sample fleet.
 */
import { ConfigError, loadDatabaseUrl } from './environment.js';
import { isMain } from './is-main.js';
import { createLogger, type Logger } from './logger.js';
import { createKnex } from './connection.js';
import { seedDemo } from './demo-data.js';
import { ensureCheckRules, ensureDefaultRules, ensureScriptRules } from './seed-rules.js';

export async function seedMain(argv: string[], env: NodeJS.ProcessEnv, log: Logger): Promise<number> {
  let url: string;
  try {
    url = loadDatabaseUrl(env);
  } catch (error) {
    if (error instanceof ConfigError) {
      log.fatal(error.message);
      return 1;
    }
    throw error;
  }
  const knex = createKnex({ url, poolMax: 1, applicationName: 'argus-seed', log });
  try {
    const rules = await ensureDefaultRules(knex);
    if (rules.alertRules || rules.eventRules) log.info(rules, 'Seeded the default rules');
    const checkRules = await ensureCheckRules(knex);
    if (checkRules) log.info({ alertRules: checkRules }, "Seeded the network checks' default rules");
    const scriptRules = await ensureScriptRules(knex);
    if (scriptRules) log.info({ alertRules: scriptRules }, "Seeded the script checks' default rules");
    if (argv.includes('--demo')) {
      const demo = await seedDemo(knex, new Date());
      log.info(demo ?? {}, demo ? 'Added the demo fleet' : 'Demo fleet already present');
    }
    return 0;
  } catch (error) {
    log.fatal(`Seeding failed: ${error instanceof Error ? error.message : String(error)}`);
    return 1;
  } finally {
    await knex.destroy();
  }
}

if (isMain(import.meta.url)) {
  process.exitCode = await seedMain(process.argv.slice(2), process.env, createLogger({ name: 'argus-seed' }));
}
