// The nginx configuration of the native-limit target: proxy_pass to the mock through an upstream
// keepalive pool, one worker (the Node targets are single-threaded too), everything under one temp dir.

export interface NginxConfigOptions {
  /** Directory for the pid file, error log and temp paths. */
  dir: string;
  listenPort: number;
  upstreamPort: number;
}

export function nginxConfig(options: NginxConfigOptions): string {
  const { dir } = options;
  return `daemon off;
master_process on;
worker_processes 1;
pid ${dir}/nginx.pid;
error_log ${dir}/error.log warn;
events { worker_connections 8192; }
http {
  access_log off;
  client_body_temp_path ${dir}/client_body;
  proxy_temp_path ${dir}/proxy;
  fastcgi_temp_path ${dir}/fastcgi;
  uwsgi_temp_path ${dir}/uwsgi;
  scgi_temp_path ${dir}/scgi;
  # Bodies up to 1 MB stay in memory, so the 50 KB prompt never touches disk.
  client_body_buffer_size 1m;
  client_max_body_size 10m;
  keepalive_requests 1000000;
  keepalive_timeout 120s;
  upstream mock {
    server 127.0.0.1:${options.upstreamPort};
    keepalive 256;
    keepalive_requests 1000000;
  }
  server {
    listen 127.0.0.1:${options.listenPort};
    location / {
      proxy_pass http://mock;
      proxy_http_version 1.1;
      proxy_set_header Connection "";
      # Pass-through like the Node proxies: stream events as they arrive.
      proxy_buffering off;
      proxy_read_timeout 120s;
    }
  }
}
`;
}
