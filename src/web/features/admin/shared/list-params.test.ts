import { describe, expect, it } from 'vitest'
import { listParamsToApiQuery, listParamsToSearch, nextSort, pageCount, parseListParams } from './list-params'

const defaults = { sort: 'created_at', dir: 'desc' } as const
const keys = ['status', 'planId'] as const

describe('admin list state in the URL', () => {
  it('falls back to the defaults for a bare URL', () => {
    expect(parseListParams(new URLSearchParams(), keys, defaults)).toEqual({
      page: 1,
      pageSize: 20,
      q: '',
      sort: 'created_at',
      dir: 'desc',
      filters: { status: '', planId: '' },
    })
  })

  it('ignores malformed page numbers and directions', () => {
    const parsed = parseListParams(new URLSearchParams('page=-2&pageSize=500&dir=sideways'), keys, defaults)
    expect(parsed).toMatchObject({ page: 1, pageSize: 20, dir: 'desc' })
  })

  it('round-trips through the query string, keeping only what differs from the defaults', () => {
    const search = new URLSearchParams('q=maria&status=active&page=3&sort=status&dir=asc')
    const parsed = parseListParams(search, keys, defaults)
    expect(listParamsToSearch(parsed, defaults).toString()).toBe('q=maria&status=active&sort=status&dir=asc&page=3')
    expect(listParamsToSearch(parseListParams(new URLSearchParams(), keys, defaults), defaults).toString()).toBe('')
  })

  it('sends the API every parameter except empty filters', () => {
    const parsed = parseListParams(new URLSearchParams('planId=plan_pro'), keys, defaults)
    expect(listParamsToApiQuery(parsed)).toBe('page=1&pageSize=20&sort=created_at&dir=desc&planId=plan_pro')
  })

  it('flips the direction of the sorted column and starts another column at its first direction', () => {
    expect(nextSort({ sort: 'name', dir: 'asc' }, 'name')).toEqual({ sort: 'name', dir: 'desc' })
    expect(nextSort({ sort: 'name', dir: 'desc' }, 'created_at', 'desc')).toEqual({ sort: 'created_at', dir: 'desc' })
  })

  it('counts at least one page', () => {
    expect(pageCount(0, 20)).toBe(1)
    expect(pageCount(41, 20)).toBe(3)
  })
})
