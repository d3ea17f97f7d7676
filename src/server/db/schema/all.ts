export * from './auth'
export * from './billing'
export * from './plans'
export * from './platform'
