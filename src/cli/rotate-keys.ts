import '../require-node'; // first: refuses an unsupported Node before anything else loads
import { parseArgs } from 'node:util';
import { type Config, loadConfigOrExit } from '../config';
import { createLogger } from '../logger';
import { exitOnStartFailure, secretLiterals } from '../server';
import { createKeyRotation } from '../store/key-rotation';
import { migrate } from '../store/migrate';
import { openDatabase } from '../store/open';
import { createTokenCipher } from '../store/token-cipher';

/**
 * `npm run rotate-keys`: re-seals every stored token, pending connect attempt and Hub secret under the first
 * key of HUB_ENCRYPTION_KEYS. Rotation: put the new key first (keep the old ones after it), restart every
 * replica, run this, then remove the old keys only when it says they can go — which accounts for what is not
 * in the database: connect links already handed out are signed with the key that was first when they were
 * made, and keep working until they expire. Safe to run while the Hub serves traffic (rows are re-sealed in
 * short transactions, skipping rows another writer holds) and safe to run again.
 *
 * `--replace-unreadable-secrets`: a Hub secret sealed with a key that is gone for good gets fresh bytes (never
 * done implicitly: a replica merely missing a newer key must not replace what the others still use).
 */
export async function rotateKeys(config: Config, print: (line: string) => void, options: { replaceUnreadableSecrets?: boolean } = {}): Promise<boolean> {
  const logger = createLogger({ level: 'warn', secrets: secretLiterals(config) });
  const db = await openDatabase(config.database, logger);
  try {
    await migrate(db, logger);
    const keys = createKeyRotation(db, createTokenCipher(config.encryptionKeys));
    const current = config.encryptionKeys[0]!.id;
    const { reencrypted, failed } = await keys.reencryptAll();
    const { pendingConnects, secrets, replacedSecrets } = await keys.resealOther({ replaceUnreadableSecrets: options.replaceUnreadableSecrets === true });
    print(`re-encrypted ${reencrypted} credential row(s) under key "${current}"`);
    if (pendingConnects + secrets > 0) print(`re-sealed ${pendingConnects} pending connect attempt(s) and ${secrets} Hub secret(s) under key "${current}"`);
    if (replacedSecrets > 0) print(`replaced ${replacedSecrets} unreadable Hub secret(s) with new ones under key "${current}"`);
    for (const f of failed) print(`  could not open row ${f.id}: ${f.reason}`);

    const older = (u: { keyId: string }) => u.keyId !== current;
    const credentials = (await keys.keyUsage()).filter(older);
    const other = await keys.otherUsage();
    const pending = other.pendingConnects.filter(older);
    const hubSecrets = other.secrets.filter(older);
    for (const u of credentials) print(`  ${u.rows} row(s) still sealed with key "${u.keyId}"`);
    for (const u of pending) {
      print(`  ${u.rows} pending connect attempt(s) still sealed with key "${u.keyId}" (the last lapses at ${u.lastExpiresAt.toISOString()})`);
    }
    const configured = new Set(config.encryptionKeys.map((k) => k.id));
    for (const u of hubSecrets) {
      print(
        configured.has(u.keyId)
          ? `  ${u.rows} Hub secret(s) still sealed with key "${u.keyId}"`
          : `  ${u.rows} Hub secret(s) sealed with key "${u.keyId}", which is not configured: calendar creates run without ` +
              'crash-safe event ids until the key is added back, or until you run this with --replace-unreadable-secrets',
      );
    }

    const linkLifetimeS = Math.max(config.connect.linkTtlS, config.connect.setupUrlTtlS);
    if (credentials.length + pending.length + hubSecrets.length === 0) {
      print(
        `no stored data uses older keys; remove them from HUB_ENCRYPTION_KEYS once every replica has run with "${current}" first for ` +
          `${formatDuration(linkLifetimeS)} (the longest connect-link lifetime: links handed out before are signed with an older key)`,
      );
    } else {
      print('keep the older keys in HUB_ENCRYPTION_KEYS until these are gone (run this again; pending attempts lapse by themselves)');
    }
    return failed.length === 0;
  } finally {
    await db.close();
  }
}

/** 3600 → "1 h", 900 → "15 min", 86400 → "24 h". */
export const formatDuration = (s: number) => (s % 3600 === 0 ? `${s / 3600} h` : s % 60 === 0 ? `${s / 60} min` : `${s} s`);

const USAGE = 'usage: npm run rotate-keys [-- --replace-unreadable-secrets]';

if (require.main === module) {
  let replaceUnreadableSecrets = false;
  try {
    const { values } = parseArgs({
      args: process.argv.slice(2),
      options: { 'replace-unreadable-secrets': { type: 'boolean' } },
      strict: true,
      allowPositionals: false,
    });
    replaceUnreadableSecrets = values['replace-unreadable-secrets'] === true;
  } catch (err) {
    process.stderr.write(`rotate-keys: ${(err as Error).message}\n${USAGE}\n`);
    process.exit(2);
  }
  rotateKeys(loadConfigOrExit(), (line) => process.stdout.write(`${line}\n`), { replaceUnreadableSecrets }).then(
    (clean) => process.exit(clean ? 0 : 2),
    exitOnStartFailure('rotation failed'),
  );
}
