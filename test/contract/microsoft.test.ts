import { calendarPortContract } from './calendar-port';
import { mailPortContract } from './mail-port';
import { microsoftProvider } from './microsoft-world';

/** The port contract suite on the Microsoft provider (the Graph adapters), against the Microsoft sandbox. */
calendarPortContract(microsoftProvider);
mailPortContract(microsoftProvider);
