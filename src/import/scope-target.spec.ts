import { reduceTarget, reduceValue } from './scope-target.js';

describe('reducing scope targets to root domains', () => {
  it.each([
    ['*.auvik.com', ['auvik.com']],
    ['gemini.com', ['gemini.com']],
    ['creditcard.exchange.gemini.com', ['gemini.com']],
    ['https://mein.wien.gv.at/broker/api/*', ['wien.gv.at']],
    ['https://*.gesundheitsverbund.at', ['gesundheitsverbund.at']],
    ['http://data-api.coindesk.com/', ['coindesk.com']],
    ['https://www.minhaconta.zoop.com.br', ['zoop.com.br']],
    ['api.simplisafe.com (HSP Endpoints)', ['simplisafe.com']],
    ['*.prd.platform.simplisafe.com (App Endpoints)', ['simplisafe.com']],
    ['Dropbox.com', ['dropbox.com']],
    ['*.example.(com|de)', ['example.com', 'example.de']],
    ['api-*.example.co.uk', ['example.co.uk']],
    ['https://user:pw@shop.example.com:8443/x?y#z', ['example.com']],
    ['www.bücher.de', ['xn--bcher-kva.de']],
    [
      'https://lazzx4o5mh.execute-api.eu-west-1.amazonaws.com/production/x',
      ['lazzx4o5mh.execute-api.eu-west-1.amazonaws.com'],
    ],
    ['*.app.herokuapp.com', ['app.herokuapp.com']],
    ['example.com.', ['example.com']],
    ['*tidalhi.fi', ['tidalhi.fi']],
    [' https://api-*exoscale.com/v2', ['exoscale.com']],
    ['www.fing.com*', ['fing.com']],
    ['*.hicloudcam.com,', ['hicloudcam.com']],
    ['*. advancedcustomfields.com', ['advancedcustomfields.com']],
    ['wss://ws.bitvavo.com/v2 *', ['bitvavo.com']],
    ['bugcrowd-pam-###.oktapreview.com', ['oktapreview.com']],
    ['bugbounty-refined-test-<bugcrowd-name>.refined.site\t', ['refined.site']],
    ['https://[it | fr | us | sg | …].louisvuitton.com', ['louisvuitton.com']],
    ['https://edge.blablacar.(fr|de|co.uk))', ['blablacar.fr', 'blablacar.de', 'blablacar.co.uk']],
  ])('reduces %j to %j', (value, roots) => expect(reduceValue(value)).toEqual({ roots }));

  it.each([
    ['Zendesk Public Repositories', 'free_text'],
    ['Leaked/compromised employee accounts *.here.com', 'free_text'],
    ['████████████', 'free_text'],
    ['198.142.152.60', 'ip_address'],
    ['213.211.188.0/24', 'ip_address'],
    ['IPv6: 2a02:2c40::/32', 'ip_address'],
    ['https://play.google.com/store/apps/details?id=com.acorns.android', 'mobile_app'],
    ['https://apps.apple.com/us/app/loom-screen-recorder/id1474480829', 'mobile_app'],
    ['https://marketplace.atlassian.com/apps/1221601/user-deactivator', 'app_store_listing'],
    ['https://github.com/grafana/loki', 'source_code'],
    ['https://docs.google.com/spreadsheets/d/1CzscF67/edit?gid=1', 'third_party_document'],
    ['https://www.microsoft.com/en-us/p/keeperchat/9pdqtcpn4kxn#activetab=pivot:overviewtab', 'app_store_listing'],
    ['https://microsoftedge.microsoft.com/addons/detail/pinterest-save-button/bkgo', 'app_store_listing'],
    ['https://gist.github.com/RedBullSecurity/3eb88debcb01759eccf65ec2b799b340', 'source_code'],
    ['https://gitlab.isc.org/isc-projects/bind9', 'source_code'],
    ['localhost', 'free_text'],
    ['*.co.uk', 'no_registrable_domain'],
    ['*.dhl', 'no_registrable_domain'],
    ['*.nexuzhealth.*', 'no_registrable_domain'],
    ['gov.sg', 'no_registrable_domain'],
    ['Backend endpoint: bug-bounty-be.glean.com', 'free_text'],
    ['open redirect at *.epam.com', 'free_text'],
  ])('skips %j as %s', (value, reason) => expect(reduceValue(value)).toEqual({ skip: reason }));

  it.each([
    ['GOOGLE_PLAY_APP_ID', 'com.gemini.android.app', 'mobile_app'],
    ['APPLE_STORE_APP_ID', 'com.gemini.ios', 'mobile_app'],
    ['android', 'Oura Android App', 'mobile_app'],
    ['mobile-application-ios', 'https://apps.apple.com/fr/app/x/id1', 'mobile_app'],
    ['iprange', '31.31.140.0/24', 'ip_address'],
    ['network', '172.24.250.128', 'ip_address'],
    ['open-source', 'https://gitlab.isc.org/isc-projects/bind9', 'source_code'],
    ['hardware', 'Wyze Cam V3', 'not_web'],
    ['iot', 'https://www.sophos.com/en-us/products/next-gen-firewall', 'not_web'],
  ])('skips a %s target as %s', (type, value, reason) => expect(reduceTarget(type, value)).toEqual({ skip: reason }));

  it('reads web targets of generic types by their value', () => {
    expect(reduceTarget('mobile-application', 'preprod.am.monespacesante.fr')).toEqual({
      roots: ['monespacesante.fr'],
    });
    expect(reduceTarget('other', 'wellbeing.dzcdn.net')).toEqual({ roots: ['dzcdn.net'] });
    expect(reduceTarget(null, 'https://github.com/grafana/alloy')).toEqual({ skip: 'source_code' });
    expect(reduceTarget('URL', '*.auvik.com')).toEqual({ roots: ['auvik.com'] });
  });
});
