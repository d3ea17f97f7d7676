import { Outlet } from 'react-router'

export function DashboardLayout() {
  return (
    <div className="min-h-dvh">
      <Outlet />
    </div>
  )
}
