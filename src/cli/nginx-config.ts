import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';

/** As deploy/nginx/asset-manager.conf logs: the request id is the one the platform logs too. */
const accessLogLines = (prefix: string) =>
  `  log_format asset_manager '$remote_addr [$time_local] "$request_method $uri" $status $body_bytes_sent '
                           '$request_time rid=$request_id upstream=$upstream_addr $upstream_response_time';
  access_log ${join(prefix, 'access.log')} asset_manager;
`;

/** nginx: NGINX_PATH, else Debian's place (not on a non-root PATH), else whatever PATH finds. */
export const nginxBinary = () =>
  process.env.NGINX_PATH ?? ['/usr/sbin/nginx', '/usr/local/sbin/nginx'].find(existsSync) ?? 'nginx';

export interface NginxSite {
  /** Where this server listens, on 127.0.0.1. */
  port: number;
  /** The platform instances' ports behind it. */
  instances: readonly number[];
  /**
   * Those of `instances` out of rotation (`down`): nginx sends them no request until a configuration
   * without them is loaded (`npm run cluster` does so from each instance's /readyz: rotation.ts).
   */
  down?: readonly number[];
  /** More directives for its location (after deploy/nginx's proxy settings). */
  extra?: string;
}

/**
 * A whole nginx configuration for a folder of its own (`prefix`: pid, logs, temporary files), run in
 * the foreground by a program that starts and stops it: deploy/nginx's proxy settings in front of
 * each site's instances, balanced as deploy/nginx/asset-manager.conf balances them.
 */
export function nginxConfig(
  prefix: string,
  sites: NginxSite[],
  {
    workers = 1,
    accessLog = false,
    generation,
  }: {
    workers?: number | 'auto';
    /** `npm run cluster` keeps one (prefix/access.log); the benchmarks measure nginx without. */
    accessLog?: boolean;
    /**
     * A number answered at `/_cluster/generation`, so that whoever rewrote the configuration and
     * asked nginx to reload it can tell when new connections get the new one (a reload is
     * asynchronous: nginx starts new workers, and the old ones finish their requests).
     */
    generation?: number;
  } = {},
): string {
  const server = (port: number, down: boolean) =>
    `    server 127.0.0.1:${port} max_fails=1 fail_timeout=5s${down ? ' down' : ''};`;
  const site = ({ port, instances, down = [], extra }: NginxSite, i: number) => `  upstream platform_${i} {
    least_conn;
${instances.map((p) => server(p, down.includes(p))).join('\n')}
    keepalive 32;
  }
  server {
    listen 127.0.0.1:${port};${
      generation === undefined
        ? ''
        : `
    location = /_cluster/generation {
      default_type text/plain;
      return 200 "${generation}";
    }`
    }
    location / {
      proxy_pass http://platform_${i};
      include ${resolve('deploy/nginx/asset-manager-proxy.conf')};${extra ? `\n      ${extra}` : ''}
    }
  }`;
  return `# Written by its program (npm run cluster: at its start and at each change of rotation); the settings that matter are in deploy/nginx.
daemon off;
worker_processes ${workers};
pid ${join(prefix, 'nginx.pid')};
error_log ${join(prefix, 'error.log')} warn;
${process.getuid?.() === 0 ? 'user root;\n' : ''}events { worker_connections 1024; }
http {
${accessLog ? accessLogLines(prefix) : '  access_log off;\n'}  client_body_temp_path ${join(prefix, 'client-body')};
  proxy_temp_path ${join(prefix, 'proxy')};
  fastcgi_temp_path ${join(prefix, 'fastcgi')};
  uwsgi_temp_path ${join(prefix, 'uwsgi')};
  scgi_temp_path ${join(prefix, 'scgi')};
${sites.map(site).join('\n')}
}
`;
}
