// The configuration used when no file is given: mock models only, so the first request needs no account.

export const BUILTIN_CONFIG_YAML = `
listen: { host: 127.0.0.1, port: 8080 }
database: ./data/modelgate.db
providers:
  - { name: mock, kind: mock }
models:
  - name: gpt-mock
    family: openai
    aliases: ["gpt-*", "gemini-*"]
    price: { input: 0.15, output: 0.6 }
    deployments: [ { provider: mock, model: gpt-mock } ]
  - name: claude-mock
    aliases: ["claude-*"]
    price: { input: 3, output: 15 }
    deployments: [ { provider: mock, model: claude-mock } ]
`;
