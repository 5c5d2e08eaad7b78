import { AlertCenter } from '../alerts/index.ts';
import { webUrl } from '../server/index.ts';
import { withProject } from './with-project.ts';

/** Sends one alert's test message from this process; throws (one line, no secret) when it is not delivered. */
export async function testAlert(project: string, name: string, env: NodeJS.ProcessEnv): Promise<string> {
  return withProject(project, env, async (ctx) => {
    const alerts = new AlertCenter({
      store: ctx.store, events: ctx.events, alerts: ctx.config.alerts, project: ctx.config.name, env: ctx.env, outbound: ctx.outbound, redactor: ctx.redactor, log: ctx.log, now: ctx.now,
    });
    try {
      await alerts.sendTest(name, webUrl(ctx));
    } finally {
      await alerts.close();
    }
    return `Sent a test message to alert ${name}`;
  });
}
