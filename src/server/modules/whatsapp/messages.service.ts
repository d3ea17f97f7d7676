// What other modules may use of the WhatsApp message log (messages.repo.ts holds the queries): the lifecycle records
// the notifications it sends, and the personal-data export and erasure read and delete a person's messages.
export { deletePersonalMessages, type OutboundRecord, personalMessages, recordOutbound } from './messages.repo'
