import { describe, expect, it } from 'vitest';
import { ConfigError } from '../../errors.ts';
import { parseSources, type SourceConfig } from './sources-config.ts';

function sourceYaml(config: string): string {
  return `sources:\n  - name: events\n    type: event_stream\n    generic_config: ${config}\n`;
}

function problemsOf(config: string): readonly string[] {
  try {
    parseSources(sourceYaml(config));
  } catch (error) {
    if (error instanceof ConfigError) return error.problems;
    throw error;
  }
  throw new Error('the config was accepted');
}

function configOf(config: string): Extract<SourceConfig, { type: 'event_stream' }>['generic_config'] {
  const [source] = parseSources(sourceYaml(config));
  if (source?.type !== 'event_stream') throw new Error('not an event_stream source');
  return source.generic_config;
}

describe('event_stream generic_config', () => {
  it('infers the protocol from the servers and applies the defaults', () => {
    expect(configOf('{ servers: ["nats://127.0.0.1:4222"], stream: ORDERS }')).toMatchObject({
      protocol: 'nats', stream: 'ORDERS', max_messages: 100_000, start_from: 'earliest', idle_timeout_seconds: 2, tls: false,
    });
    expect(configOf('{ servers: ["broker:9092"], protocol: kafka, topics: [orders] }')).toMatchObject({ protocol: 'kafka', topics: ['orders'] });
  });

  it('asks for the protocol when the servers do not tell it', () => {
    expect(problemsOf('{ servers: ["broker:9092"], topics: [orders] }')).toEqual([
      'sources.yml: sources[0].generic_config.protocol: required: kafka or nats (or write every server as nats://host:port or kafka://host:port)',
    ]);
  });

  it('names what each protocol needs and refuses the other protocol\'s keys', () => {
    expect(problemsOf('{ servers: ["kafka://broker:9092"], stream: ORDERS }')).toEqual([
      'sources.yml: sources[0].generic_config.stream: is for nats; this source reads kafka',
      'sources.yml: sources[0].generic_config.topics: required for kafka: the topics to read',
    ]);
    expect(problemsOf('{ servers: ["nats://127.0.0.1:4222"], topics: [orders] }')).toEqual([
      'sources.yml: sources[0].generic_config.topics: is for kafka; this source reads nats',
      'sources.yml: sources[0].generic_config.stream: required for nats: the JetStream stream to read',
    ]);
  });

  it('locates bad values: a consumer name, a credential variable alone, a limit, a start position', () => {
    expect(problemsOf('{ servers: ["nats://h:4222"], stream: S, durable_name: "a.b", username_env: NATS_USER, max_messages: 0, start_from: beginning }')).toEqual([
      'sources.yml: sources[0].generic_config.durable_name: "a.b" is not a consumer name: use letters, digits, - and _',
      'sources.yml: sources[0].generic_config.max_messages: must be greater than 0',
      'sources.yml: sources[0].generic_config.start_from: expected one of earliest, latest, got "beginning"',
    ]);
    expect(problemsOf('{ servers: ["nats://h:4222"], stream: S, username_env: NATS_USER }')).toEqual([
      'sources.yml: sources[0].generic_config.password_env: required when username_env is set',
    ]);
  });
});
