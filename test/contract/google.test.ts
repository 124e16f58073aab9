import { calendarPortContract } from './calendar-port';
import { googleProvider } from './google-world';
import { mailPortContract } from './mail-port';

/** The port contract suite on the Google provider, against the Google sandbox. */
calendarPortContract(googleProvider);
mailPortContract(googleProvider);
