import * as OTPAuth from 'otpauth';
import QRCode from 'qrcode';
import { decryptSecret, encryptSecret } from '../config/index.ts';
import { InvalidRequestError, QuarryError } from '../errors.ts';
import type { Store, UserRecord } from '../store/index.ts';

export class InvalidTotpCodeError extends QuarryError {
  readonly code = 'invalid_totp_code';
  constructor() {
    super('The two-factor code is wrong, expired or already used');
  }
}

export interface TotpEnrollment {
  readonly secret: string;
  readonly otpauthUri: string;
  readonly qrSvg: string;
}

const CODE = /^\d{6}$/;

/** TOTP (RFC 6238, 30 s, 6 digits, one step of drift), secrets encrypted with the project key, each code usable once. */
export class TwoFactor {
  readonly #store: Store;
  readonly #key: Buffer;
  readonly #now: () => Date;
  readonly #issuer: string;

  constructor(options: { store: Store; secretKey: Buffer; now: () => Date; issuer: string }) {
    this.#store = options.store;
    this.#key = options.secretKey;
    this.#now = options.now;
    this.#issuer = options.issuer;
  }

  /** Starts (or restarts) enrollment with a new secret; 2FA stays off until `enable` confirms a code. */
  async setup(user: UserRecord): Promise<TotpEnrollment> {
    if (user.totpEnabled) throw new InvalidRequestError('Two-factor authentication is already on; turn it off first');
    const totp = this.#totp(new OTPAuth.Secret({ size: 20 }), user.email);
    await this.#store.users.setTotp(user.id, encryptSecret(totp.secret.base32, this.#key), false, 0, this.#now().toISOString());
    const otpauthUri = totp.toString();
    return { secret: totp.secret.base32, otpauthUri, qrSvg: await QRCode.toString(otpauthUri, { type: 'svg', margin: 1 }) };
  }

  async enable(user: UserRecord, code: string): Promise<void> {
    if (user.totpEnabled) throw new InvalidRequestError('Two-factor authentication is already on');
    if (user.totpSecretEncrypted === null) throw new InvalidRequestError('Start with the two-factor setup step');
    const counter = this.#acceptedCounter(user, code);
    await this.#store.users.setTotp(user.id, user.totpSecretEncrypted, true, counter, this.#now().toISOString());
  }

  /** Turns two-factor off; the caller has verified a current code. */
  async disable(user: UserRecord): Promise<void> {
    await this.#store.users.setTotp(user.id, null, false, 0, this.#now().toISOString());
  }

  /** Accepts a current code once; a replay of the same or an older time step is refused. */
  async verify(user: UserRecord, code: string): Promise<void> {
    const counter = this.#acceptedCounter(user, code);
    if (!await this.#store.users.advanceTotpCounter(user.id, counter)) throw new InvalidTotpCodeError();
  }

  #acceptedCounter(user: UserRecord, code: string): number {
    if (user.totpSecretEncrypted === null || !CODE.test(code)) throw new InvalidTotpCodeError();
    const totp = this.#totp(OTPAuth.Secret.fromBase32(decryptSecret(user.totpSecretEncrypted, this.#key)), user.email);
    const timestamp = this.#now().getTime();
    const delta = totp.validate({ token: code, window: 1, timestamp });
    if (delta === null) throw new InvalidTotpCodeError();
    const counter = totp.counter({ timestamp }) + delta;
    if (counter <= user.totpLastCounter) throw new InvalidTotpCodeError();
    return counter;
  }

  #totp(secret: OTPAuth.Secret, email: string): OTPAuth.TOTP {
    return new OTPAuth.TOTP({ issuer: this.#issuer, label: email, algorithm: 'SHA1', digits: 6, period: 30, secret });
  }
}
