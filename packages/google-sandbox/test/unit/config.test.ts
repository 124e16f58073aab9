import { SANDBOX_ENV_SCHEMA, SandboxConfigError, loadSandboxConfig } from '../../src/config';

describe('sandbox configuration', () => {
  it('when nothing is set, then port 8090, control API off, demo data on', () => {
    expect(loadSandboxConfig({})).toMatchObject({ port: 8090, host: '127.0.0.1', control: false, demoData: true, seed: undefined, accessTokenLifetimeS: 3600 });
  });

  it('when values are invalid, then each is named', () => {
    expect(() => loadSandboxConfig({ SANDBOX_CONTROL: 'maybe', SANDBOX_SEED: 'abc', SANDBOX_REDIRECT_URIS: 'not a url' })).toThrow(
      /SANDBOX_SEED[\s\S]*SANDBOX_CONTROL[\s\S]*SANDBOX_REDIRECT_URIS/,
    );
    expect(() => loadSandboxConfig({ SANDBOX_PORT: '70000' })).toThrow(SandboxConfigError);
  });

  it('when the variables are listed for documentation, then each says what it does', () => {
    for (const [name, variable] of Object.entries(SANDBOX_ENV_SCHEMA.shape))
      expect({ name, description: variable.description }).toEqual({ name, description: expect.any(String) });
  });
});
